/* Processes: started with fork and exec (libuv's uv_spawn has no hook to set PR_SET_PDEATHSIG in the
 * child), their output read through libuv pipes, their end seen through a pidfd, so no SIGCHLD handler
 * is installed (Foundation's Process, used elsewhere in the shell, keeps its own). */
#define _GNU_SOURCE
#include "CFluxLoop.h"
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Bytes queued for a process's standard input. */
typedef struct pending_write {
    struct pending_write *next;
    size_t length, offset;
    char bytes[];
} pending_write;

struct fluxloop_process {
    uint64_t id;
    pid_t pid;
    int released;
    int exited;
    int status;
    int reported_exit;
    /* Parent ends: standard input written directly (EPIPE must not raise SIGPIPE), output through libuv. */
    int in_fd;
    int close_in_when_written;
    pending_write *queue, *queue_tail;
    uv_poll_t in_poll;
    int in_polling, in_poll_open;
    uv_pipe_t out, err;
    int out_open, err_open;
    uv_poll_t exit_poll; /* on the pidfd */
    int exit_poll_open;
    uv_timer_t reap_timer; /* without pidfd_open: waitpid every 50 ms */
    int reap_timer_open;
    int pidfd;
    int handles; /* libuv handles not closed yet */
    struct fluxloop_process *next, *previous;
};

static __thread fluxloop_process *processes = NULL; /* of this thread's loop */
static int registered_exit = 0;

static void unlink_process(fluxloop_process *p) {
    if (p->previous) p->previous->next = p->next; else if (processes == p) processes = p->next;
    if (p->next) p->next->previous = p->previous;
    p->next = p->previous = NULL;
}

static void free_if_done(fluxloop_process *p) {
    if (p->handles > 0 || !p->exited || !p->released) return;
    while (p->queue) {
        pending_write *next = p->queue->next;
        free(p->queue);
        p->queue = next;
    }
    if (p->in_fd >= 0) close(p->in_fd);
    if (p->pidfd >= 0) close(p->pidfd);
    unlink_process(p);
    free(p);
}

#define CONTAINER(pointer, member) ((fluxloop_process *)((char *)(pointer) - offsetof(fluxloop_process, member)))

static void out_closed(uv_handle_t *h) { fluxloop_process *p = CONTAINER(h, out); p->handles--; free_if_done(p); }
static void err_closed(uv_handle_t *h) { fluxloop_process *p = CONTAINER(h, err); p->handles--; free_if_done(p); }
static void in_poll_closed(uv_handle_t *h) { fluxloop_process *p = CONTAINER(h, in_poll); p->handles--; free_if_done(p); }
static void exit_poll_closed(uv_handle_t *h) { fluxloop_process *p = CONTAINER(h, exit_poll); p->handles--; free_if_done(p); }
static void reap_timer_closed(uv_handle_t *h) { fluxloop_process *p = CONTAINER(h, reap_timer); p->handles--; free_if_done(p); }

static void close_out(fluxloop_process *p) {
    if (!p->out_open) return;
    p->out_open = 0;
    uv_close((uv_handle_t *)&p->out, out_closed);
}

static void close_err(fluxloop_process *p) {
    if (!p->err_open) return;
    p->err_open = 0;
    uv_close((uv_handle_t *)&p->err, err_closed);
}

static void close_in(fluxloop_process *p) {
    if (p->in_poll_open) {
        p->in_poll_open = 0;
        uv_close((uv_handle_t *)&p->in_poll, in_poll_closed);
    }
    if (p->in_fd >= 0) {
        close(p->in_fd);
        p->in_fd = -1;
    }
}

static void alloc_buffer(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer) {
    (void)handle;
    (void)suggested;
    static char bytes[65536]; /* one read at a time: the loop has one thread */
    buffer->base = bytes;
    buffer->len = sizeof bytes;
}

static void report_output(fluxloop_process *p, int stream, const char *bytes, size_t length) {
    if (!p->released && length > 0) fluxloop_report(p->id, FLUXLOOP_OUTPUT, stream, 0, bytes, length);
}

static void read_out(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer) {
    fluxloop_process *p = CONTAINER(stream, out);
    if (count > 0) report_output(p, 1, buffer->base, (size_t)count);
    else if (count < 0) close_out(p);
}

static void read_err(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer) {
    fluxloop_process *p = CONTAINER(stream, err);
    if (count > 0) report_output(p, 2, buffer->base, (size_t)count);
    else if (count < 0) close_err(p);
}

/* Reads what the process left in a pipe before it ended, without waiting (a grandchild may hold it open). */
static void drain(fluxloop_process *p, uv_pipe_t *pipe, int open, int stream) {
    if (!open) return;
    uv_os_fd_t fd;
    if (uv_fileno((uv_handle_t *)pipe, &fd) != 0) return;
    char bytes[65536];
    for (;;) {
        ssize_t count = read(fd, bytes, sizeof bytes);
        if (count > 0) { report_output(p, stream, bytes, (size_t)count); continue; }
        if (count < 0 && errno == EINTR) continue;
        break;
    }
}

static void reaped(fluxloop_process *p, int status) {
    p->exited = 1;
    p->status = status;
    if (p->exit_poll_open) {
        p->exit_poll_open = 0;
        uv_close((uv_handle_t *)&p->exit_poll, exit_poll_closed);
    }
    if (p->reap_timer_open) {
        p->reap_timer_open = 0;
        uv_close((uv_handle_t *)&p->reap_timer, reap_timer_closed);
    }
    drain(p, &p->out, p->out_open, 1);
    drain(p, &p->err, p->err_open, 2);
    close_out(p);
    close_err(p);
    close_in(p);
    if (!p->released && !p->reported_exit) {
        p->reported_exit = 1;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        int signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        fluxloop_report(p->id, FLUXLOOP_EXIT, code, signal, NULL, 0);
    }
    free_if_done(p);
}

static void try_reap(fluxloop_process *p) {
    if (p->exited) return;
    int status = 0;
    pid_t done;
    do { done = waitpid(p->pid, &status, WNOHANG); } while (done < 0 && errno == EINTR);
    if (done == p->pid) reaped(p, status);
    else if (done < 0 && errno == ECHILD) reaped(p, 0); /* reaped by someone else: nothing to wait for */
}

static void exit_ready(uv_poll_t *handle, int status, int events) {
    (void)status;
    (void)events;
    try_reap(CONTAINER(handle, exit_poll));
}

static void reap_tick(uv_timer_t *handle) { try_reap(CONTAINER(handle, reap_timer)); }

/* MARK: Standard input */

static void flush_input(fluxloop_process *p);

static void input_writable(uv_poll_t *handle, int status, int events) {
    (void)status;
    (void)events;
    flush_input(CONTAINER(handle, in_poll));
}

/* write() with SIGPIPE blocked, and a SIGPIPE it raised consumed: a process that closed its input makes
 * the write fail with EPIPE instead of ending the shell. */
static ssize_t write_quietly(int fd, const char *bytes, size_t length) {
    sigset_t pipe_set, previous;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &previous);
    ssize_t written;
    do { written = write(fd, bytes, length); } while (written < 0 && errno == EINTR);
    int saved = errno;
    if (written < 0 && errno == EPIPE) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE) {}
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    errno = saved;
    return written;
}

static void flush_input(fluxloop_process *p) {
    while (p->queue && p->in_fd >= 0) {
        pending_write *head = p->queue;
        ssize_t written = write_quietly(p->in_fd, head->bytes + head->offset, head->length - head->offset);
        if (written < 0 && errno == EAGAIN) break;
        if (written < 0) { /* the process closed its input: what is queued is dropped */
            while (p->queue) { pending_write *next = p->queue->next; free(p->queue); p->queue = next; }
            p->queue_tail = NULL;
            close_in(p);
            return;
        }
        head->offset += (size_t)written;
        if (head->offset < head->length) continue;
        p->queue = head->next;
        if (p->queue == NULL) p->queue_tail = NULL;
        free(head);
    }
    int waiting = p->queue != NULL && p->in_fd >= 0;
    if (waiting && !p->in_polling && p->in_poll_open) {
        uv_poll_start(&p->in_poll, UV_WRITABLE, input_writable);
        p->in_polling = 1;
    } else if (!waiting && p->in_polling) {
        uv_poll_stop(&p->in_poll);
        p->in_polling = 0;
    }
    if (!waiting && p->close_in_when_written) close_in(p);
}

int fluxloop_process_write(fluxloop_process *p, const char *bytes, size_t length) {
    if (p->in_fd < 0 || p->close_in_when_written) return -EPIPE;
    if (length == 0) return 0;
    pending_write *entry = malloc(sizeof *entry + length);
    if (entry == NULL) return -ENOMEM;
    entry->next = NULL;
    entry->length = length;
    entry->offset = 0;
    memcpy(entry->bytes, bytes, length);
    if (p->queue_tail) p->queue_tail->next = entry; else p->queue = entry;
    p->queue_tail = entry;
    flush_input(p);
    return 0;
}

void fluxloop_process_close_stdin(fluxloop_process *p) {
    p->close_in_when_written = 1;
    flush_input(p);
}

/* MARK: Starting and ending */

static void kill_all_at_exit(void) { fluxloop_kill_all(); }

static int set_cloexec_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

fluxloop_process *fluxloop_spawn(uint64_t id, const char *path, char *const argv[], char *const envp[],
                                 const char *cwd, int *pid_out, int *error) {
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
    *error = 0;
    if (set_cloexec_pipe(in) || set_cloexec_pipe(out) || set_cloexec_pipe(err) || set_cloexec_pipe(report)) {
        *error = errno;
        int all[] = {in[0], in[1], out[0], out[1], err[0], err[1], report[0], report[1]};
        for (int i = 0; i < 8; i++) if (all[i] >= 0) close(all[i]);
        return NULL;
    }
    char *const *environment = envp ? envp : environ;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* The child: only async-signal-safe calls until exec. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127); /* the shell died before the line above */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int sig = 1; sig < NSIG; sig++) {
            if (sig == SIGKILL || sig == SIGSTOP) continue;
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_handler = SIG_DFL;
            sigaction(sig, &action, NULL);
        }
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        int code = 0;
        if (cwd != NULL && chdir(cwd) != 0) code = errno;
        if (code == 0) {
            execve(path, argv, environment);
            code = errno;
        }
        ssize_t ignored = write(report[1], &code, sizeof code);
        (void)ignored;
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    close(report[1]);
    if (pid < 0) {
        *error = errno;
        close(in[1]); close(out[0]); close(err[0]); close(report[0]);
        return NULL;
    }
    setpgid(pid, pid); /* also from here: whichever runs first, the group exists before a kill */
    int code = 0;
    ssize_t count;
    do { count = read(report[0], &code, sizeof code); } while (count < 0 && errno == EINTR);
    close(report[0]);
    if (count == (ssize_t)sizeof code) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        close(in[1]); close(out[0]); close(err[0]);
        *error = code;
        return NULL;
    }

    fluxloop_process *p = calloc(1, sizeof *p);
    p->id = id;
    p->pid = pid;
    p->in_fd = in[1];
    fcntl(p->in_fd, F_SETFL, fcntl(p->in_fd, F_GETFL) | O_NONBLOCK);
    p->pidfd = -1;
    uv_loop_t *loop = fluxloop_loop();
    uv_pipe_init(loop, &p->out, 0);
    uv_pipe_open(&p->out, out[0]);
    uv_pipe_init(loop, &p->err, 0);
    uv_pipe_open(&p->err, err[0]);
    p->out_open = p->err_open = 1;
    p->handles += 2;
    uv_read_start((uv_stream_t *)&p->out, alloc_buffer, read_out);
    uv_read_start((uv_stream_t *)&p->err, alloc_buffer, read_err);
    if (uv_poll_init(loop, &p->in_poll, p->in_fd) == 0) {
        p->in_poll_open = 1;
        p->handles++;
    }
#ifdef SYS_pidfd_open
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
    if (p->pidfd >= 0 && uv_poll_init(loop, &p->exit_poll, p->pidfd) == 0) {
        p->exit_poll_open = 1;
        p->handles++;
        uv_poll_start(&p->exit_poll, UV_READABLE, exit_ready);
    } else {
        uv_timer_init(loop, &p->reap_timer);
        p->reap_timer_open = 1;
        p->handles++;
        uv_timer_start(&p->reap_timer, reap_tick, 50, 50);
    }
    p->next = processes;
    if (processes) processes->previous = p;
    processes = p;
    if (!registered_exit) {
        registered_exit = 1;
        atexit(kill_all_at_exit);
    }
    *pid_out = pid;
    return p;
}

int fluxloop_process_kill(fluxloop_process *p, int signal) {
    if (p->exited) return ESRCH;
    if (kill(-p->pid, signal) == 0) return 0;
    /* The group may be gone while the leader is not reaped yet, or the child not yet in its group. */
    return kill(p->pid, signal) == 0 ? 0 : errno;
}

int fluxloop_process_exited(fluxloop_process *p) { return p->exited; }

void fluxloop_process_reap(fluxloop_process *p) {
    if (p->exited) return;
    int status = 0;
    pid_t done;
    do { done = waitpid(p->pid, &status, 0); } while (done < 0 && errno == EINTR);
    reaped(p, done == p->pid ? status : 0);
}

void fluxloop_process_release(fluxloop_process *p) {
    p->released = 1;
    free_if_done(p);
}

void fluxloop_kill_all(void) {
    for (fluxloop_process *p = processes; p != NULL; p = p->next) {
        if (p->exited) continue;
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
    }
    for (fluxloop_process *p = processes; p != NULL;) {
        fluxloop_process *next = p->next;
        if (!p->exited) {
            int status = 0;
            while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR) {}
            p->released = 1;
            reaped(p, status);
        }
        p = next;
    }
}
