/*
 * CReadline: GNU readline and history for FluxShell, plus the few C pieces Swift cannot express.
 *
 * This header only declares; the definitions, and the signal state they share, are in
 * readline_glue.c and signal_flags.c, compiled once.
 *
 * Swift 6 treats every mutable C global as shared mutable state and refuses to touch it, so each
 * readline variable the line editor needs is reached through a small setter or getter (the same
 * variables lua.c's readline support relies on, plus the callback interface's).
 *
 * The signal handler is C too: a handler may only touch `volatile sig_atomic_t` flags and call
 * async-signal-safe functions, which is easiest to guarantee in C.
 */
#ifndef FLUXSHELL_CREADLINE_H
#define FLUXSHELL_CREADLINE_H

#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

/* MARK: - Readline variables */

void fluxrl_set_readline_name(const char *name);

FILE *fluxrl_stdin(void);
FILE *fluxrl_stdout(void);
FILE *fluxrl_stderr(void);
void fluxrl_set_instream(FILE *stream);
void fluxrl_set_outstream(FILE *stream);

/* With both off readline installs no handler of its own: the editor handles signals itself. */
void fluxrl_set_catch_signals(int on);
void fluxrl_set_catch_sigwinch(int on);
/* Off: readline would otherwise export LINES and COLUMNS into the environment of Lua's os.execute. */
void fluxrl_set_change_environment(int on);

char *fluxrl_line_buffer(void);
int fluxrl_point(void);
void fluxrl_set_point(int point);
int fluxrl_end(void);
int fluxrl_done(void);
void fluxrl_set_done(int done);
int fluxrl_version(void);
/** Forgets an EOF readline has seen, so later lines do not end with a newline of their own. */
void fluxrl_clear_eof_found(void);
int fluxrl_pending_input(void);
void fluxrl_set_pending_input(int key);

/* MARK: - Completion variables */

void fluxrl_set_attempted_completion_function(rl_completion_func_t *function);
/* The string must outlive every completion: readline keeps the pointer. */
void fluxrl_set_completer_word_break_characters(const char *characters);
void fluxrl_set_completion_append_character(int character);
int fluxrl_completion_append_character(void);
void fluxrl_set_attempted_completion_over(int over);
int fluxrl_attempted_completion_over(void);
/* On: readline treats the matches as paths (a `/` after a directory, quoting of odd names). */
void fluxrl_set_filename_completion_desired(int on);
int fluxrl_filename_completion_desired(void);

/* Paths matching `text`, as readline's default completion finds them. */
char **fluxrl_filename_matches(const char *text);

/* MARK: - History variables */

int fluxrl_history_length(void);

/* MARK: - Signals
 *
 * One handler serves every signal the editor catches. It records the signal in a flag, wakes the
 * editor's poll() through a self-pipe (so a signal arriving just before poll() is not missed) and the
 * wake function, if one is set, and, for SIGINT in the running phase, calls the interrupt function the
 * REPL provided.
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

/* Creates the self-pipe (non-blocking, close-on-exec). Returns 0, or -1 with errno set. */
int fluxrl_signal_open_wake_pipe(void);
/* The end of the self-pipe to poll(), or -1. */
int fluxrl_signal_wake_fd(void);
/* Empties the self-pipe after poll() reported it readable. */
void fluxrl_signal_drain_wake_pipe(void);
/* Has the handler also call `function(context)` after each signal it catches (NULL: none): what wakes
 * an event loop waiting on no descriptor. The function must be async-signal-safe. */
void fluxrl_signal_set_wake_function(void (*function)(void *), void *context);

/* Routes `sig` to the handler, remembering the previous action. With `keep_ignored`, a signal
 * the process ignores (SIGHUP under nohup) stays ignored, as readline does for all but SIGINT.
 * Returns 0, or -1 with errno set. */
int fluxrl_signal_catch(int sig, int keep_ignored);
/* Gives `sig` back its action from before fluxrl_signal_catch. */
void fluxrl_signal_release(int sig);
/* Sends `sig` to the calling thread with `sig` unblocked there for the moment, so it is acted on
 * before this returns even on a thread that blocks signals (as thread-pool threads do). */
void fluxrl_signal_raise_here(int sig);

void fluxrl_signal_set_phase(int phase);
int fluxrl_signal_phase(void);
void fluxrl_signal_set_interrupt_function(void (*function)(void));

/* While set (nonzero), a second SIGINT before the first was taken does not end the process: for work that
 * must finish once stopped, such as putting the stores back after an interrupted replay. */
void fluxrl_signal_set_patient(int patient);
/* Whether SIGINT arrived since the last call; clears the flag. */
int fluxrl_signal_take_interrupt(void);
/* Whether SIGINT arrived since the flag was last cleared, leaving it set. */
int fluxrl_signal_interrupt_pending(void);
/* Whether SIGWINCH arrived since the last call; clears the flag. */
int fluxrl_signal_take_resize(void);
/* The last other caught signal since the last call (0 for none); clears it. */
int fluxrl_signal_take_other(void);
/* Whether another caught signal arrived and was not taken yet, leaving it set. */
int fluxrl_signal_other_pending(void);

/* MARK: - Reading keys (key_reader.c) */

/* Makes readline read keys with a reader that a pending SIGINT (or other caught signal) interrupts: the
 * key being read is abandoned and rl_callback_read_char returns, never blocking on input the terminal
 * discarded at Ctrl-C. */
void fluxrl_use_key_reader(void);
/* rl_callback_read_char, then puts back what an abandoned key changed (the bell style). */
void fluxrl_read_char(void);

#endif
