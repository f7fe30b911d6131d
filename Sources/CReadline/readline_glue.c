/* Readline's variables, reached through functions: Swift 6 will not touch mutable C globals. */
#include "CReadline.h"

void fluxrl_set_readline_name(const char *name) { rl_readline_name = name; }

FILE *fluxrl_stdin(void) { return stdin; }
FILE *fluxrl_stdout(void) { return stdout; }
FILE *fluxrl_stderr(void) { return stderr; }
void fluxrl_set_instream(FILE *stream) { rl_instream = stream; }
void fluxrl_set_outstream(FILE *stream) { rl_outstream = stream; }

void fluxrl_set_catch_signals(int on) { rl_catch_signals = on; }
void fluxrl_set_catch_sigwinch(int on) { rl_catch_sigwinch = on; }
void fluxrl_set_change_environment(int on) { rl_change_environment = on; }

char *fluxrl_line_buffer(void) { return rl_line_buffer; }
int fluxrl_point(void) { return rl_point; }
void fluxrl_set_point(int point) { rl_point = point; }
int fluxrl_end(void) { return rl_end; }
int fluxrl_done(void) { return rl_done; }
void fluxrl_set_done(int done) { rl_done = done; }
int fluxrl_version(void) { return rl_readline_version; }
int fluxrl_pending_input(void) { return rl_pending_input; }
void fluxrl_set_pending_input(int key) { rl_pending_input = key; }

void fluxrl_set_attempted_completion_function(rl_completion_func_t *function) {
    rl_attempted_completion_function = function;
}
void fluxrl_set_completer_word_break_characters(const char *characters) {
    rl_completer_word_break_characters = characters;
}
void fluxrl_set_completion_append_character(int character) { rl_completion_append_character = character; }
int fluxrl_completion_append_character(void) { return rl_completion_append_character; }
void fluxrl_set_attempted_completion_over(int over) { rl_attempted_completion_over = over; }
int fluxrl_attempted_completion_over(void) { return rl_attempted_completion_over; }
void fluxrl_set_filename_completion_desired(int on) { rl_filename_completion_desired = on; }
int fluxrl_filename_completion_desired(void) { return rl_filename_completion_desired; }

char **fluxrl_filename_matches(const char *text) {
    return rl_completion_matches(text, rl_filename_completion_function);
}

int fluxrl_history_length(void) { return history_length; }

/* Readline 8.1 and later set rl_eof_found at an EOF and, in callback mode, never clear it: every later
   line's end then prints a newline of its own (rl_deprep_terminal), a blank line before each result.
   Cleared once the EOF is taken. */
void fluxrl_clear_eof_found(void) {
#if RL_READLINE_VERSION >= 0x0801
    rl_eof_found = 0;
#endif
}
