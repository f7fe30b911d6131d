/* The loop, its timers, polled descriptors and file watches. Processes are in process.c. */
#define _GNU_SOURCE /* ppoll */
#include "CFluxLoop.h"
#include "internal.h"

#include <errno.h>
#include <linux/futex.h>
#include <fcntl.h>
#include <stdlib.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static fluxloop_event_fn event_function = NULL;

void fluxloop_set_event_function(fluxloop_event_fn function) { event_function = function; }

static __thread uv_loop_t *thread_loop = NULL;
static __thread int thread_number = 0;
static int threads_numbered = 0;

int fluxloop_thread_number(void) {
    if (thread_number == 0) thread_number = __atomic_add_fetch(&threads_numbered, 1, __ATOMIC_RELAXED);
    return thread_number;
}

/* The loop's waker: what another thread, or a signal handler, wakes the loop with (fluxloop_wake). It
 * counts wake-ups in `posted`, writes an event descriptor polled by a handle that stays started (so libuv
 * always has an active handle, and its wait time, uv_backend_timeout, means what it says), and wakes a
 * futex wait on `posted`: the wait a loop with nothing but timers sleeps in (see wait_for_timers). The
 * block lives as long as the process, so a waker never reaches freed memory, whatever thread ended. */
struct fluxloop_waker {
    int descriptor;
    uint32_t posted; /* wake-ups posted, wrapping; the futex word */
    uint32_t taken;  /* `posted` as the loop last saw it; the loop's thread alone writes it */
};

static __thread fluxloop_waker *thread_waker = NULL;
static __thread uv_poll_t *wake_poll = NULL;

static void woken(uv_poll_t *handle, int status, int events) {
    (void)handle; (void)status; (void)events;
    uint64_t count;
    while (read(thread_waker->descriptor, &count, sizeof count) < 0 && errno == EINTR) {}
    fluxloop_report(0, FLUXLOOP_WAKE, 0, 0, NULL, 0);
}

uv_loop_t *fluxloop_loop(void) {
    if (thread_loop == NULL) {
        thread_loop = malloc(sizeof *thread_loop);
        if (thread_loop == NULL || uv_loop_init(thread_loop) != 0) abort(); /* no loop, no shell */
        thread_waker = calloc(1, sizeof *thread_waker);
        wake_poll = malloc(sizeof *wake_poll);
        if (thread_waker == NULL || wake_poll == NULL) abort();
        thread_waker->descriptor = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (thread_waker->descriptor < 0 || uv_poll_init(thread_loop, wake_poll, thread_waker->descriptor) != 0
            || uv_poll_start(wake_poll, UV_READABLE, woken) != 0) abort();
    }
    return thread_loop;
}

fluxloop_waker *fluxloop_waker_of_thread(void) {
    fluxloop_loop();
    return thread_waker;
}

/* Async-signal-safe: an atomic add and two system calls. */
void fluxloop_wake(fluxloop_waker *waker) {
    __atomic_add_fetch(&waker->posted, 1, __ATOMIC_SEQ_CST);
    uint64_t one = 1;
    while (write(waker->descriptor, &one, sizeof one) < 0 && errno == EINTR) {}
    syscall(SYS_futex, &waker->posted, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
}

void fluxloop_wake_context(void *waker) { fluxloop_wake(waker); }

static int64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int64_t fluxloop_clock(void) { return monotonic_ns(); }

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

/* Waits until libuv's epoll descriptor has an event or `timeout` (NULL: none) passed; > 0 when it has one.
 * epoll_pwait2 (Linux 5.11) waits on it directly, to the nanosecond, a little cheaper than a ppoll on it;
 * the event it returns stays for libuv's own wait, as libuv registers descriptors level-triggered. */
static int wait_backend(int backend, const struct timespec *timeout) {
    static int no_pwait2 = 0;
    if (!no_pwait2) {
        struct epoll_event event;
        int ready = (int)syscall(SYS_epoll_pwait2, backend, &event, 1, timeout, NULL, 0);
        if (ready >= 0 || errno != ENOSYS) return ready;
        no_pwait2 = 1;
    }
    struct pollfd descriptor = { backend, POLLIN, 0 };
    return ppoll(&descriptor, 1, timeout, NULL);
}

/* Sleeps until `due` (CLOCK_MONOTONIC ns; 0 or less: none) or a wake-up: the wait of a loop whose libuv
 * has nothing to watch but the waker (no descriptor, process, watch or timer of its own), so that nothing
 * but time and fluxloop_wake can end it. A futex wait with an absolute time costs the kernel about what a
 * clock_nanosleep does, a tenth less than an epoll_pwait2 (measured in C: docs/performance.md, Timers). 0 when the time
 * came; 1 when woken, or a signal arrived, or a wake-up was posted since the last round: the caller then
 * runs libuv's round, which reads the event descriptor and reports FLUXLOOP_WAKE. */
static int wait_for_timers(int64_t due) {
    fluxloop_waker *waker = thread_waker;
    uint32_t posted = __atomic_load_n(&waker->posted, __ATOMIC_SEQ_CST);
    if (posted != waker->taken) {
        waker->taken = posted;
        return 1;
    }
    struct timespec until = { (time_t)(due / 1000000000), (long)(due % 1000000000) };
    /* The kernel sleeps only while `posted` is still what was read: a wake-up posted since is not lost. */
    long result = syscall(SYS_futex, &waker->posted, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, posted,
                          due > 0 ? &until : NULL, NULL, FUTEX_BITSET_MATCH_ANY);
    return result == 0 || errno != ETIMEDOUT;
}

/* Whether libuv holds nothing that can become ready but the waker's poll, and has nothing to do now: no
 * other handle (so no timer or idle handle of its own), no request, no callback pending, nothing closing,
 * no stop asked. Then its wait time is "none", and its round, until woken, would do nothing. */
static int only_waker(uv_loop_t *loop) {
    return loop->active_handles == 1 && loop->active_reqs.count == 0 && loop->stop_flag == 0
        && loop->closing_handles == NULL && loop->pending_queue[0] == (void *)&loop->pending_queue;
}

/* Whether libuv has descriptors to (un)register with epoll that only its next round registers: until
 * then the epoll descriptor cannot report them. (An empty queue points at itself.) */
static int watchers_pending(uv_loop_t *loop) {
    return loop->watcher_queue[0] != (void *)&loop->watcher_queue;
}

int64_t fluxloop_round(int64_t due, int wait) {
    uv_loop_t *loop = fluxloop_loop();
    /* Descriptors started since the last round are registered first, in a round that does not wait: its
     * callbacks may be what the caller waits for, so the round ends there. */
    if (watchers_pending(loop)) {
        uv_run(loop, UV_RUN_NOWAIT);
        return monotonic_ns();
    }
    int64_t now = monotonic_ns();
    if (wait && (due <= 0 || due > now)) {
        if (only_waker(loop)) {
            int woken_up = wait_for_timers(due);
            now = monotonic_ns();
            if (!woken_up) return now; /* the earliest timer's time came */
            uv_run(loop, UV_RUN_NOWAIT);
            return now;
        }
        uv_update_time(loop);
        int libuv = uv_backend_timeout(loop); /* ms; -1: no libuv timer; 0: libuv has work now */
        if (libuv != 0) {
            int64_t limit = due > 0 ? due - now : -1;
            int ours = 1;
            if (libuv > 0 && (limit < 0 || (int64_t)libuv * 1000000 < limit)) {
                limit = (int64_t)libuv * 1000000;
                ours = 0;
            }
            struct timespec timeout = { (time_t)(limit / 1000000000), (long)(limit % 1000000000) };
            int ready = wait_backend(uv_backend_fd(loop), limit < 0 ? NULL : &timeout);
            now = monotonic_ns();
            /* Only the earliest timer's time came: the timers are Swift's, libuv has nothing to do. */
            if (ready == 0 && ours) return now;
        }
    }
    uv_run(loop, UV_RUN_NOWAIT);
    return now;
}

void fluxloop_report(uint64_t id, int kind, int64_t a, int64_t b, const char *bytes, size_t length) {
    fluxloop_event_fn function = event_function;
    if (function != NULL) function(id, kind, a, b, bytes, length);
}

int fluxloop_run(int mode) {
    uv_run_mode run_mode = mode == 1 ? UV_RUN_ONCE : mode == 2 ? UV_RUN_NOWAIT : UV_RUN_DEFAULT;
    return uv_run(fluxloop_loop(), run_mode) != 0;
}

void fluxloop_stop(void) { uv_stop(fluxloop_loop()); }
uint64_t fluxloop_now(void) { return uv_now(fluxloop_loop()); }
void fluxloop_update_time(void) { uv_update_time(fluxloop_loop()); }
const char *fluxloop_strerror(int error) { return uv_strerror(error); }

/* Frees a handle's block once libuv has closed it: the block starts with the handle. */
static void free_on_close(uv_handle_t *handle) { free(handle); }

/* MARK: Timers */

struct fluxloop_timer {
    uv_timer_t handle; /* first: the block is freed through it */
    uint64_t id;
};

static void timer_fired(uv_timer_t *handle) {
    fluxloop_timer *timer = (fluxloop_timer *)handle;
    fluxloop_report(timer->id, FLUXLOOP_TIMER, 0, 0, NULL, 0);
}

fluxloop_timer *fluxloop_timer_start(uint64_t id, uint64_t timeout, uint64_t repeat) {
    fluxloop_timer *timer = calloc(1, sizeof *timer);
    if (timer == NULL) return NULL;
    timer->id = id;
    uv_timer_init(fluxloop_loop(), &timer->handle);
    if (uv_timer_start(&timer->handle, timer_fired, timeout, repeat) != 0) {
        uv_close((uv_handle_t *)&timer->handle, free_on_close);
        return NULL;
    }
    return timer;
}

void fluxloop_timer_close(fluxloop_timer *timer) {
    if (timer == NULL) return;
    uv_timer_stop(&timer->handle);
    uv_close((uv_handle_t *)&timer->handle, free_on_close);
}

/* MARK: Descriptors */

/* One poll handle per descriptor, for the life of the thread's loop: each wait starts it and stops it.
 * A handle made and closed for every wait would leave the closing one and the next wait's on the same
 * descriptor at once (libuv keeps one watcher per descriptor, and a close still pending makes the next
 * round return without waiting). The handle is made again only when the descriptor now names another
 * file (closed and reused), which a started handle must never meet: libuv aborts when epoll refuses it. */
struct fluxloop_poll {
    uv_poll_t handle; /* first: the block is freed through it */
    uint64_t id;
    int fd;
    dev_t device;
    ino_t inode;
    int started;
    struct fluxloop_poll *next;
};

static __thread fluxloop_poll *polls = NULL;

static void poll_ready(uv_poll_t *handle, int status, int events) {
    (void)events;
    fluxloop_poll *poll = (fluxloop_poll *)handle;
    fluxloop_report(poll->id, FLUXLOOP_READABLE, status, 0, NULL, 0);
}

/* Forgets the handle of `fd`, if any (the descriptor was closed or names another file now). */
static void poll_forget(int fd) {
    for (fluxloop_poll **link = &polls; *link != NULL; link = &(*link)->next) {
        fluxloop_poll *poll = *link;
        if (poll->fd != fd) continue;
        *link = poll->next;
        uv_poll_stop(&poll->handle);
        uv_close((uv_handle_t *)&poll->handle, free_on_close);
        return;
    }
}

/* The handle of `fd`, made on first use; NULL with *error set when the descriptor cannot be polled. */
static fluxloop_poll *poll_for(int fd, int *error) {
    struct stat status;
    if (fstat(fd, &status) != 0) {
        *error = -errno;
        poll_forget(fd);
        return NULL;
    }
    for (fluxloop_poll *poll = polls; poll != NULL; poll = poll->next) {
        if (poll->fd != fd) continue;
        if (poll->device == status.st_dev && poll->inode == status.st_ino) return poll;
        poll_forget(fd);
        break;
    }
    fluxloop_poll *poll = calloc(1, sizeof *poll);
    if (poll == NULL) {
        *error = UV_ENOMEM;
        return NULL;
    }
    /* uv_poll_init makes the descriptor non-blocking, and a terminal's descriptors share that flag: the
     * shell's standard output would then fail with EAGAIN on a slow terminal, and a script's io.read()
     * return at once. Polling needs no such mode (nothing here reads), so the descriptor keeps its own. */
    int flags = fcntl(fd, F_GETFL);
    int result = uv_poll_init(fluxloop_loop(), &poll->handle, fd);
    if (flags != -1) fcntl(fd, F_SETFL, flags);
    if (result != 0) {
        free(poll);
        *error = result;
        return NULL;
    }
    poll->fd = fd;
    poll->device = status.st_dev;
    poll->inode = status.st_ino;
    poll->next = polls;
    polls = poll;
    return poll;
}

fluxloop_poll *fluxloop_poll_start(uint64_t id, int fd, int *error) {
    fluxloop_poll *poll = poll_for(fd, error);
    if (poll == NULL) return NULL;
    if (poll->started) { /* a wait inside a wait on the same descriptor */
        *error = UV_EEXIST;
        return NULL;
    }
    poll->id = id;
    int result = uv_poll_start(&poll->handle, UV_READABLE | UV_DISCONNECT, poll_ready);
    if (result != 0) {
        *error = result;
        return NULL;
    }
    poll->started = 1;
    return poll;
}

void fluxloop_poll_stop(fluxloop_poll *poll) {
    if (poll == NULL || !poll->started) return;
    uv_poll_stop(&poll->handle);
    poll->started = 0;
}

/* MARK: File watches */

struct fluxloop_watch {
    uv_fs_event_t handle;
    uint64_t id;
};

static void path_changed(uv_fs_event_t *handle, const char *name, int events, int status) {
    fluxloop_watch *watch = (fluxloop_watch *)handle;
    int64_t kind = ((events & UV_RENAME) ? 1 : 0) | ((events & UV_CHANGE) ? 2 : 0);
    fluxloop_report(watch->id, FLUXLOOP_CHANGE, kind, status, name, name ? strlen(name) : 0);
}

fluxloop_watch *fluxloop_watch_start(uint64_t id, const char *path, int *error) {
    fluxloop_watch *watch = calloc(1, sizeof *watch);
    if (watch == NULL) {
        *error = UV_ENOMEM;
        return NULL;
    }
    watch->id = id;
    uv_fs_event_init(fluxloop_loop(), &watch->handle);
    int status = uv_fs_event_start(&watch->handle, path_changed, path, 0);
    if (status != 0) {
        uv_close((uv_handle_t *)&watch->handle, free_on_close);
        *error = status;
        return NULL;
    }
    return watch;
}

void fluxloop_watch_close(fluxloop_watch *watch) {
    if (watch == NULL) return;
    uv_fs_event_stop(&watch->handle);
    uv_close((uv_handle_t *)&watch->handle, free_on_close);
}
