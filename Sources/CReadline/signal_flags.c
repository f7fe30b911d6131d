/* The signal handler and the one copy of the state it shares with the line editor.
 *
 * The flags are read and cleared with one atomic exchange (lock-free for int), so a signal landing
 * between the read and the clear is never lost. */
#include "CReadline.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t phase = FLUXRL_RUNNING;
static volatile sig_atomic_t interrupts = 0;
static volatile sig_atomic_t resized = 0;
/* The last terminal signal (SIGTSTP, SIGTERM, SIGHUP, SIGQUIT) caught while editing, or 0. */
static volatile sig_atomic_t other = 0;
static void (*volatile interrupt_function)(void) = NULL;
/* Set while work that must finish runs: a second SIGINT then does not end the process. */
static volatile sig_atomic_t patient = 0;
static int wake_fds[2] = {-1, -1};
static void (*volatile wake_function)(void *) = NULL;
static void *volatile wake_context = NULL;
static struct sigaction previous_actions[NSIG];
static char caught[NSIG];

static void handler(int sig) {
    int saved_errno = errno;
    if (sig == SIGINT) {
        if (phase == FLUXRL_RUNNING) {
            if (interrupts > 0 && !patient) {
                /* The first interrupt was never taken: give the user a way out. */
                struct sigaction action;
                memset(&action, 0, sizeof action);
                action.sa_handler = SIG_DFL;
                sigemptyset(&action.sa_mask);
                sigaction(SIGINT, &action, NULL);
                raise(SIGINT); /* delivered once this handler returns */
            }
            void (*interrupt)(void) = interrupt_function;
            if (interrupt != NULL) interrupt();
        }
        __atomic_fetch_add(&interrupts, 1, __ATOMIC_SEQ_CST);
    } else if (sig == SIGWINCH) {
        resized = 1;
    } else {
        other = sig;
    }
    if (wake_fds[1] >= 0) {
        char byte = 0;
        ssize_t ignored = write(wake_fds[1], &byte, 1);
        (void)ignored; /* a full pipe already wakes poll() */
    }
    void (*wake)(void *) = wake_function;
    if (wake != NULL) wake(wake_context);
    errno = saved_errno;
}

int fluxrl_signal_open_wake_pipe(void) {
    if (wake_fds[0] >= 0) return 0;
    int fds[2];
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    wake_fds[0] = fds[0];
    wake_fds[1] = fds[1];
    return 0;
}

int fluxrl_signal_wake_fd(void) { return wake_fds[0]; }

/* The function is cleared before the context changes: a handler running meanwhile calls neither half-set. */
void fluxrl_signal_set_wake_function(void (*function)(void *), void *context) {
    wake_function = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    wake_context = context;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    wake_function = function;
}

void fluxrl_signal_drain_wake_pipe(void) {
    char buffer[64];
    if (wake_fds[0] < 0) return;
    while (read(wake_fds[0], buffer, sizeof buffer) > 0) {}
}

/* SA_RESTART keeps blocking reads and writes of running code from failing with EINTR; poll() is
 * interrupted regardless. Not for SIGINT: Ctrl-C must end a script's wait in io.read() on the terminal, so
 * that the interrupt reaches the script at once (restarted, the read went on waiting for Return, and a
 * second Ctrl-C meanwhile ended the shell). */
int fluxrl_signal_catch(int sig, int keep_ignored) {
    if (sig <= 0 || sig >= NSIG || caught[sig]) return 0;
    struct sigaction action;
    if (sigaction(sig, NULL, &previous_actions[sig]) != 0) return -1;
    if (keep_ignored && previous_actions[sig].sa_handler == SIG_IGN) return 0;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = sig == SIGINT ? 0 : SA_RESTART;
    if (sigaction(sig, &action, NULL) != 0) return -1;
    caught[sig] = 1;
    /* A blocked mask is inherited across exec: a shell started from a thread that blocks the signal
     * (as thread pools do) would otherwise never hear Ctrl-C. */
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    return 0;
}

void fluxrl_signal_release(int sig) {
    if (sig <= 0 || sig >= NSIG || !caught[sig]) return;
    sigaction(sig, &previous_actions[sig], NULL);
    caught[sig] = 0;
}

void fluxrl_signal_raise_here(int sig) {
    sigset_t unblock, previous;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, &previous);
    raise(sig);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

void fluxrl_signal_set_phase(int new_phase) { phase = new_phase; }
int fluxrl_signal_phase(void) { return phase; }

void fluxrl_signal_set_interrupt_function(void (*function)(void)) { interrupt_function = function; }

void fluxrl_signal_set_patient(int value) { patient = value != 0; }

int fluxrl_signal_take_interrupt(void) {
    return __atomic_exchange_n(&interrupts, 0, __ATOMIC_SEQ_CST) > 0;
}

int fluxrl_signal_interrupt_pending(void) {
    return __atomic_load_n(&interrupts, __ATOMIC_SEQ_CST) > 0;
}

int fluxrl_signal_take_resize(void) {
    return __atomic_exchange_n(&resized, 0, __ATOMIC_SEQ_CST);
}

int fluxrl_signal_take_other(void) {
    return __atomic_exchange_n(&other, 0, __ATOMIC_SEQ_CST);
}

int fluxrl_signal_other_pending(void) { return __atomic_load_n(&other, __ATOMIC_SEQ_CST) != 0; }
