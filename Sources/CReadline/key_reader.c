/* Readline's reading of one key, replaced so that a Ctrl-C can never leave it waiting on the terminal.
 *
 * A Ctrl-C makes the terminal send SIGINT and discard the input not read yet. When that input had already
 * woken the editor's wait, readline's own rl_getc then blocks in read() with nothing left to read, and,
 * its own signal handling being off, restarts the read after the signal: the prompt stops reading until
 * the next key. This reader waits for a key or for the signal handler's self-pipe, reads through a
 * non-blocking description of the terminal (input discarded meanwhile is "nothing yet", never a blocked
 * read), and, once a SIGINT (or another signal the editor acts on) is pending, abandons the key being
 * read with readline's abort, which returns from rl_callback_read_char: the editor then handles the
 * signal as when it arrived between keys. */
#include "CReadline.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The descriptor readline reads, as last seen, and a non-blocking description of the same file (or -1). */
static int reader_fd = -1;
static int private_fd = -1;
static dev_t reader_dev;
static ino_t reader_ino;
/* The bell style to put back once an abort returned: the abort of a Ctrl-C rings no bell. */
static char quieted_bell[32];

/* A descriptor of the same file as `fd` whose reads never block, or -1 when none could be opened. */
static int nonblocking_descriptor(int fd) {
    struct stat status;
    if (fstat(fd, &status) != 0) return -1;
    if (fd == reader_fd && status.st_dev == reader_dev && status.st_ino == reader_ino) return private_fd;
    if (private_fd >= 0) close(private_fd);
    reader_fd = fd;
    reader_dev = status.st_dev;
    reader_ino = status.st_ino;
    private_fd = -1;
    /* A terminal or a pipe only: a new description of a regular file would read it from its start (and
     * reading one never blocks anyway). */
    if (!isatty(fd) && !S_ISFIFO(status.st_mode)) return -1;
    /* A new open file description: O_NONBLOCK on it leaves the terminal's shared one (and so the shell's
     * standard output) as it is. */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    private_fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    return private_fd;
}

static int signal_pending(void) {
    return fluxrl_signal_interrupt_pending() || fluxrl_signal_other_pending();
}

static int read_error(void) { return RL_ISSTATE(RL_STATE_READCMD) ? READERR : EOF; }

static int read_key(FILE *stream) {
    int fd = fileno(stream);
    int source = nonblocking_descriptor(fd);
    for (;;) {
        if (RL_ISSTATE(RL_STATE_CALLBACK) && signal_pending()) {
            const char *bell = rl_variable_value("bell-style");
            if (quieted_bell[0] == '\0' && bell != NULL && strcmp(bell, "none") != 0) {
                snprintf(quieted_bell, sizeof quieted_bell, "%s", bell);
                rl_variable_bind("bell-style", "none");
            }
            /* Returns from rl_callback_read_char: a jump across readline's frames and this one only, no
             * Swift frame (no Swift code reads keys). */
            rl_abort(1, 0);
        }
        int wake = fluxrl_signal_wake_fd();
        struct pollfd fds[2] = {{fd, POLLIN, 0}, {wake, POLLIN, 0}};
        /* Without a self-pipe a signal landing just before poll() is seen within 100 ms. */
        int count = poll(fds, wake >= 0 ? 2 : 1, wake >= 0 ? -1 : 100);
        if (count < 0) {
            if (errno == EINTR) continue;
            return read_error();
        }
        if (wake >= 0 && fds[1].revents != 0) fluxrl_signal_drain_wake_pipe();
        if (fds[0].revents == 0) continue;
        unsigned char key;
        ssize_t got = read(source >= 0 ? source : fd, &key, 1);
        if (got == 1) return key;
        if (got == 0) return EOF;
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
        return read_error();
    }
}

void fluxrl_use_key_reader(void) { rl_getc_function = read_key; }

void fluxrl_read_char(void) {
    rl_callback_read_char();
    if (quieted_bell[0] != '\0') {
        rl_variable_bind("bell-style", quieted_bell);
        quieted_bell[0] = '\0';
    }
}
