/*
 * CReadline: GNU readline and history for FluxShell, plus the few C pieces Swift cannot express.
 *
 * Swift 6 treats every mutable C global as shared mutable state and refuses to touch it, so each
 * readline variable the line editor needs is reached through a small setter or getter below
 * (the same variables lua.c's readline support relies on, plus the callback interface's).
 *
 * The signal handler lives here too: a handler may only touch `volatile sig_atomic_t` flags and
 * call async-signal-safe functions, which is easiest to guarantee in C.
 *
 * Every `static` variable in this header, file-scope or function-local, exists once per object
 * file that uses it, so the `fluxrl_signal_*` functions that share the signal state are called
 * from a single Swift file, Sources/FluxShell/SignalInterrupts.swift. The readline accessors and
 * fluxrl_signal_raise_here have no state of their own and may be called from anywhere.
 */
#ifndef FLUXSHELL_CREADLINE_SHIM_H
#define FLUXSHELL_CREADLINE_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <readline/readline.h>
#include <readline/history.h>

/* MARK: - Readline variables */

static inline void fluxrl_set_readline_name(const char *name) { rl_readline_name = name; }

static inline FILE *fluxrl_stdin(void) { return stdin; }
static inline FILE *fluxrl_stdout(void) { return stdout; }
static inline void fluxrl_set_instream(FILE *stream) { rl_instream = stream; }
static inline void fluxrl_set_outstream(FILE *stream) { rl_outstream = stream; }

/* With both off readline installs no handler of its own: the editor handles signals itself. */
static inline void fluxrl_set_catch_signals(int on) { rl_catch_signals = on; }
static inline void fluxrl_set_catch_sigwinch(int on) { rl_catch_sigwinch = on; }
/* Off: readline would otherwise export LINES and COLUMNS into the environment of Lua's os.execute. */
static inline void fluxrl_set_change_environment(int on) { rl_change_environment = on; }

static inline char *fluxrl_line_buffer(void) { return rl_line_buffer; }
static inline int fluxrl_point(void) { return rl_point; }
static inline void fluxrl_set_point(int point) { rl_point = point; }
static inline int fluxrl_end(void) { return rl_end; }
static inline int fluxrl_done(void) { return rl_done; }
static inline void fluxrl_set_done(int done) { rl_done = done; }
static inline int fluxrl_version(void) { return rl_readline_version; }
static inline int fluxrl_pending_input(void) { return rl_pending_input; }
static inline void fluxrl_set_pending_input(int key) { rl_pending_input = key; }

/* MARK: - Completion variables */

static inline void fluxrl_set_attempted_completion_function(rl_completion_func_t *function) {
    rl_attempted_completion_function = function;
}
/* The string must outlive every completion: readline keeps the pointer. */
static inline void fluxrl_set_completer_word_break_characters(const char *characters) {
    rl_completer_word_break_characters = characters;
}
static inline void fluxrl_set_completion_append_character(int character) {
    rl_completion_append_character = character;
}
static inline int fluxrl_completion_append_character(void) { return rl_completion_append_character; }
static inline void fluxrl_set_attempted_completion_over(int over) { rl_attempted_completion_over = over; }
static inline int fluxrl_attempted_completion_over(void) { return rl_attempted_completion_over; }
/* On: readline treats the matches as paths (a `/` after a directory, quoting of odd names). */
static inline void fluxrl_set_filename_completion_desired(int on) { rl_filename_completion_desired = on; }
static inline int fluxrl_filename_completion_desired(void) { return rl_filename_completion_desired; }

/* Paths matching `text`, as readline's default completion finds them. */
static inline char **fluxrl_filename_matches(const char *text) {
    return rl_completion_matches(text, rl_filename_completion_function);
}

/* MARK: - History variables */

static inline int fluxrl_history_length(void) { return history_length; }

/* MARK: - Signals
 *
 * The flags are read and cleared with one atomic exchange (lock-free for int), so a signal landing
 * between the read and the clear is never lost.
 *
 * One handler serves every signal the editor catches. It records the signal in a flag, wakes the
 * editor's poll() through a self-pipe (so a signal arriving just before poll() is not missed),
 * and, for SIGINT in the running phase, calls the interrupt function the REPL provided.
 *
 * Phases:
 *   FLUXRL_EDITING  a line is being read; the editor's loop acts on the flags (SIGINT clears the
 *                   line, SIGTSTP suspends cleanly, SIGTERM/SIGHUP/SIGQUIT restore the terminal
 *                   and are re-raised).
 *   FLUXRL_RUNNING  the REPL is running code; SIGINT calls the interrupt function. A second
 *                   SIGINT before the first was taken restores the default action and re-raises,
 *                   so a script that ignores the interrupt can still be stopped (as lua.c does).
 */

#define FLUXRL_EDITING 0
#define FLUXRL_RUNNING 1

static volatile sig_atomic_t fluxrl_signal_phase_ = FLUXRL_RUNNING;
static volatile sig_atomic_t fluxrl_signal_interrupts_ = 0;
static volatile sig_atomic_t fluxrl_signal_resized_ = 0;
/* The last terminal signal (SIGTSTP, SIGTERM, SIGHUP, SIGQUIT) caught while editing, or 0. */
static volatile sig_atomic_t fluxrl_signal_other_ = 0;
static void (*volatile fluxrl_signal_interrupt_function_)(void) = NULL;
static int fluxrl_signal_wake_fds_[2] = {-1, -1};
/* Function-local statics: Swift's importer emits those, but not a file-scope array with no
 * initializer (a C tentative definition). */
static struct sigaction *fluxrl_signal_previous_actions(void) {
    static struct sigaction previous[NSIG];
    return previous;
}
static char *fluxrl_signal_caught_flags(void) {
    static char caught[NSIG];
    return caught;
}

static void fluxrl_signal_handler(int sig) {
    int saved_errno = errno;
    if (sig == SIGINT) {
        if (fluxrl_signal_phase_ == FLUXRL_RUNNING) {
            if (fluxrl_signal_interrupts_ > 0) {
                /* The first interrupt was never taken: give the user a way out. */
                struct sigaction action;
                memset(&action, 0, sizeof action);
                action.sa_handler = SIG_DFL;
                sigemptyset(&action.sa_mask);
                sigaction(SIGINT, &action, NULL);
                raise(SIGINT); /* delivered once this handler returns */
            }
            void (*interrupt)(void) = fluxrl_signal_interrupt_function_;
            if (interrupt != NULL) interrupt();
        }
        __atomic_fetch_add(&fluxrl_signal_interrupts_, 1, __ATOMIC_SEQ_CST);
    } else if (sig == SIGWINCH) {
        fluxrl_signal_resized_ = 1;
    } else {
        fluxrl_signal_other_ = sig;
    }
    if (fluxrl_signal_wake_fds_[1] >= 0) {
        char byte = 0;
        ssize_t ignored = write(fluxrl_signal_wake_fds_[1], &byte, 1);
        (void)ignored; /* a full pipe already wakes poll() */
    }
    errno = saved_errno;
}

/* Creates the self-pipe (non-blocking, close-on-exec). Returns 0, or -1 with errno set. */
static inline int fluxrl_signal_open_wake_pipe(void) {
    if (fluxrl_signal_wake_fds_[0] >= 0) return 0;
    int fds[2];
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    fluxrl_signal_wake_fds_[0] = fds[0];
    fluxrl_signal_wake_fds_[1] = fds[1];
    return 0;
}

/* The end of the self-pipe to poll(), or -1. */
static inline int fluxrl_signal_wake_fd(void) { return fluxrl_signal_wake_fds_[0]; }

/* Empties the self-pipe after poll() reported it readable. */
static inline void fluxrl_signal_drain_wake_pipe(void) {
    char buffer[64];
    if (fluxrl_signal_wake_fds_[0] < 0) return;
    while (read(fluxrl_signal_wake_fds_[0], buffer, sizeof buffer) > 0) {}
}

/* Routes `sig` to the handler, remembering the previous action. With `keep_ignored`, a signal
 * the process ignores (SIGHUP under nohup) stays ignored, as readline does for all but SIGINT.
 * SA_RESTART keeps blocking reads and writes of running code from failing with EINTR; poll() is
 * interrupted regardless. Returns 0, or -1 with errno set. */
static inline int fluxrl_signal_catch(int sig, int keep_ignored) {
    if (sig <= 0 || sig >= NSIG || fluxrl_signal_caught_flags()[sig]) return 0;
    struct sigaction action;
    if (sigaction(sig, NULL, &fluxrl_signal_previous_actions()[sig]) != 0) return -1;
    if (keep_ignored && fluxrl_signal_previous_actions()[sig].sa_handler == SIG_IGN) return 0;
    memset(&action, 0, sizeof action);
    action.sa_handler = fluxrl_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(sig, &action, NULL) != 0) return -1;
    fluxrl_signal_caught_flags()[sig] = 1;
    /* A blocked mask is inherited across exec: a shell started from a thread that blocks the signal
     * (as thread pools do) would otherwise never hear Ctrl-C. */
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    return 0;
}

/* Gives `sig` back its action from before fluxrl_signal_catch. */
static inline void fluxrl_signal_release(int sig) {
    if (sig <= 0 || sig >= NSIG || !fluxrl_signal_caught_flags()[sig]) return;
    sigaction(sig, &fluxrl_signal_previous_actions()[sig], NULL);
    fluxrl_signal_caught_flags()[sig] = 0;
}

/* Sends `sig` to the calling thread with `sig` unblocked there for the moment, so it is acted on
 * before this returns even on a thread that blocks signals (as thread-pool threads do). */
static inline void fluxrl_signal_raise_here(int sig) {
    sigset_t unblock, previous;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, &previous);
    raise(sig);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

static inline void fluxrl_signal_set_phase(int phase) { fluxrl_signal_phase_ = phase; }
static inline int fluxrl_signal_phase(void) { return fluxrl_signal_phase_; }

static inline void fluxrl_signal_set_interrupt_function(void (*function)(void)) {
    fluxrl_signal_interrupt_function_ = function;
}

/* Whether SIGINT arrived since the last call; clears the flag. */
static inline int fluxrl_signal_take_interrupt(void) {
    return __atomic_exchange_n(&fluxrl_signal_interrupts_, 0, __ATOMIC_SEQ_CST) > 0;
}

/* Whether SIGINT arrived since the flag was last cleared, leaving it set. */
static inline int fluxrl_signal_interrupt_pending(void) {
    return __atomic_load_n(&fluxrl_signal_interrupts_, __ATOMIC_SEQ_CST) > 0;
}

/* Whether SIGWINCH arrived since the last call; clears the flag. */
static inline int fluxrl_signal_take_resize(void) {
    return __atomic_exchange_n(&fluxrl_signal_resized_, 0, __ATOMIC_SEQ_CST);
}

/* The last other caught signal since the last call (0 for none); clears it. */
static inline int fluxrl_signal_take_other(void) {
    return __atomic_exchange_n(&fluxrl_signal_other_, 0, __ATOMIC_SEQ_CST);
}

#endif
