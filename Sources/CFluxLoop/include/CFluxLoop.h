/*
 * CFluxLoop: the shell's event loop, a libuv loop (one per thread that uses it: the shell's main thread,
 * or each thread of a test run), with the handles effects use.
 *
 * Swift never holds a libuv handle's memory or a pointer back to a Swift object: each handle is made,
 * owned and freed here (libuv closes handles asynchronously), and reports what happened through one
 * function Swift sets, with the number Swift gave the handle. So no Swift object outlives or is
 * outlived by a C callback.
 */
#ifndef FLUXSHELL_CFLUXLOOP_H
#define FLUXSHELL_CFLUXLOOP_H

#include <stddef.h>
#include <stdint.h>

/* What a handle reports. */
enum {
    FLUXLOOP_TIMER = 1,   /* a timer fired */
    FLUXLOOP_READABLE = 2, /* a polled descriptor is readable (or hung up) */
    FLUXLOOP_OUTPUT = 3,  /* a process wrote: a = 1 stdout, 2 stderr; bytes */
    FLUXLOOP_EXIT = 4,    /* a process ended, its output all reported: a = exit code, b = signal */
    FLUXLOOP_CHANGE = 5,  /* a watched path changed: a = 1 rename, 2 change, 3 both; b = status; bytes = name */
    FLUXLOOP_WAKE = 6,    /* another thread handed the loop work (fluxloop_wake); id 0 */
};

/* The function every event goes to: the id Swift gave the handle, the kind, two numbers, and bytes. */
typedef void (*fluxloop_event_fn)(uint64_t id, int kind, int64_t a, int64_t b, const char *bytes, size_t length);

void fluxloop_set_event_function(fluxloop_event_fn function);

/* The calling thread's number (1, 2, …; never reused): what Swift finds the thread's loop by, per event. */
int fluxloop_thread_number(void);

/* Runs the thread's loop: mode 0 until no handle is active, 1 one round (waiting for an event),
 * 2 one round without waiting. Returns whether handles are still active. */
int fluxloop_run(int mode);
/*
 * One round of the thread's loop for a caller that keeps timers of its own: waits (when `wait`) until
 * `due` (CLOCK_MONOTONIC nanoseconds, as fluxloop_clock; 0 or less: no timer of the caller's), a
 * descriptor is ready, a libuv timer is due or the loop is woken (fluxloop_wake), then runs what libuv
 * has ready. The wait is one epoll_pwait2 on libuv's epoll descriptor, to the nanosecond, or, when libuv
 * has nothing to watch but the waker, one futex wait on the waker; when only `due` came, libuv's round is
 * left out. A round that first registers descriptors started since the last one does not wait.
 * Returns the clock at waking.
 */
int64_t fluxloop_round(int64_t due, int wait);
/* CLOCK_MONOTONIC in nanoseconds. */
int64_t fluxloop_clock(void);
/* What wakes a thread's loop from another thread or a signal handler. */
typedef struct fluxloop_waker fluxloop_waker;
/* The calling thread's loop's waker; it lives as long as the process. */
fluxloop_waker *fluxloop_waker_of_thread(void);
/* Wakes the loop of `waker` (safe from any thread and from a signal handler): it reports FLUXLOOP_WAKE. */
void fluxloop_wake(fluxloop_waker *waker);
/* fluxloop_wake with the waker as a `void *`: the shape of a signal handler's wake function. */
void fluxloop_wake_context(void *waker);
/* Makes the loop's run return after the current round. */
void fluxloop_stop(void);
/* The loop's clock in milliseconds (updated at each round). */
uint64_t fluxloop_now(void);
void fluxloop_update_time(void);
/* libuv's message for a negated errno it returned. */
const char *fluxloop_strerror(int error);

/* MARK: Timers */

typedef struct fluxloop_timer fluxloop_timer;
/* Fires after `timeout` ms, then every `repeat` ms (0: once). NULL when libuv refuses. */
fluxloop_timer *fluxloop_timer_start(uint64_t id, uint64_t timeout, uint64_t repeat);
/* Stops the timer and frees it (later, when libuv has closed it). */
void fluxloop_timer_close(fluxloop_timer *timer);

/* MARK: Descriptors */

typedef struct fluxloop_poll fluxloop_poll;
/* Reports FLUXLOOP_READABLE, to `id`, while `fd` has input, until fluxloop_poll_stop. NULL when the
 * descriptor cannot be polled (a regular file, a closed descriptor, one already polled), with *error set
 * to the negated errno. The loop keeps one handle per descriptor for its life, started and stopped. */
fluxloop_poll *fluxloop_poll_start(uint64_t id, int fd, int *error);
/* Stops reporting; the handle stays for the descriptor's next start. */
void fluxloop_poll_stop(fluxloop_poll *poll);

/* MARK: File watches */

typedef struct fluxloop_watch fluxloop_watch;
/* Watches `path` (a file or a folder). NULL with *error set (a negated errno) when it cannot. */
fluxloop_watch *fluxloop_watch_start(uint64_t id, const char *path, int *error);
void fluxloop_watch_close(fluxloop_watch *watch);

/* MARK: Processes */

typedef struct fluxloop_process fluxloop_process;
/*
 * Starts `path` (a resolved executable) with `argv` and `envp` (NULL: this process's environment) in
 * `cwd` (NULL: this one's), its standard streams piped. The child leads a process group of its own (so a
 * Ctrl-C at the terminal reaches the shell alone, and a kill reaches the whole group) and dies with the
 * shell (PR_SET_PDEATHSIG), also under kill -9. NULL with *error set (a positive errno, the child's
 * chdir or exec error included).
 */
fluxloop_process *fluxloop_spawn(uint64_t id, const char *path, char *const argv[], char *const envp[],
                                 const char *cwd, int *pid, int *error);
/* Queues `length` bytes (copied) for the process's standard input. Returns 0, or a negated errno. */
int fluxloop_process_write(fluxloop_process *process, const char *bytes, size_t length);
/* Closes the process's standard input once what is queued is written. */
void fluxloop_process_close_stdin(fluxloop_process *process);
/* Sends `signal` to the process's group. Returns 0, or a positive errno. */
int fluxloop_process_kill(fluxloop_process *process, int signal);
/* Whether the process ended and was reaped. */
int fluxloop_process_exited(fluxloop_process *process);
/* Waits for the process to end (after a SIGKILL: at once) and reaps it. */
void fluxloop_process_reap(fluxloop_process *process);
/* Reports nothing more; the handle is freed once the process was reaped. The process is not signalled. */
void fluxloop_process_release(fluxloop_process *process);
/* SIGKILLs every process not reaped yet and reaps them (the shell is leaving). */
void fluxloop_kill_all(void);

#endif
