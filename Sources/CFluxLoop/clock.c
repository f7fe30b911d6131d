/* Clocks: timer descriptors the loop polls (see CFluxLoop.h). */
#include "CFluxLoop.h"
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

struct fluxloop_clock {
    uv_poll_t handle; /* first: the block is freed through it */
    uint64_t id;
    int fd;
    int polled; /* the handle is started: only while armed, so an unarmed clock keeps no round waiting */
};

int64_t fluxloop_monotonic(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void clock_ready(uv_poll_t *handle, int status, int events) {
    (void)events;
    fluxloop_clock *clock = (fluxloop_clock *)handle;
    if (status < 0) return;
    uint64_t expirations = 0;
    /* Nothing to read (EAGAIN) when the clock was armed again or disarmed since it woke the loop. */
    if (read(clock->fd, &expirations, sizeof expirations) != (ssize_t)sizeof expirations || expirations == 0) return;
    fluxloop_report(clock->id, FLUXLOOP_CLOCK, (int64_t)expirations, 0, NULL, 0);
}

fluxloop_clock *fluxloop_clock_open(uint64_t id, int *error) {
    fluxloop_clock *clock = calloc(1, sizeof *clock);
    if (clock == NULL) {
        *error = UV_ENOMEM;
        return NULL;
    }
    clock->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (clock->fd < 0) {
        *error = -errno;
        free(clock);
        return NULL;
    }
    int result = uv_poll_init(fluxloop_loop(), &clock->handle, clock->fd);
    if (result != 0) {
        close(clock->fd);
        free(clock);
        *error = result;
        return NULL;
    }
    clock->id = id;
    return clock;
}

static struct timespec timespec_of(int64_t nanoseconds) {
    struct timespec time = {.tv_sec = nanoseconds / 1000000000, .tv_nsec = nanoseconds % 1000000000};
    return time;
}

int fluxloop_clock_arm(fluxloop_clock *clock, int64_t due, int64_t interval) {
    if (clock == NULL) return UV_EINVAL;
    struct itimerspec spec = {{0, 0}, {0, 0}};
    if (due > 0) {
        spec.it_value = timespec_of(due);
        spec.it_interval = timespec_of(interval > 0 ? interval : 0);
    }
    if (timerfd_settime(clock->fd, TFD_TIMER_ABSTIME, &spec, NULL) != 0) return -errno;
    if (due > 0 && !clock->polled) {
        int result = uv_poll_start(&clock->handle, UV_READABLE, clock_ready);
        if (result != 0) return result;
        clock->polled = 1;
    } else if (due <= 0 && clock->polled) {
        uv_poll_stop(&clock->handle);
        clock->polled = 0;
    }
    return 0;
}

/* The descriptor is closed with the handle's block, once libuv no longer watches it: a descriptor
 * closed earlier could be reused by the next clock while the loop still knew the old one. */
static void clock_closed(uv_handle_t *handle) {
    fluxloop_clock *clock = (fluxloop_clock *)handle;
    close(clock->fd);
    free(clock);
}

void fluxloop_clock_close(fluxloop_clock *clock) {
    if (clock == NULL) return;
    uv_poll_stop(&clock->handle);
    uv_close((uv_handle_t *)&clock->handle, clock_closed);
}
