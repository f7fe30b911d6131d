/* The terminfo part of ncurses (libtinfo, from Debian's libncurses-dev): a terminal's capabilities by
 * name. Only setupterm, tigetstr and tparm are used; the curses screen library is not.
 *
 * tparm is variadic, which Swift cannot call: the inline wrapper passes two parameters, all cup needs. */
#include <curses.h>
#include <term.h>

/* The string capability `name` of the terminal set up last, or NULL when it lacks it. */
static inline const char *flux_tigetstr(const char *name) {
    char *value = tigetstr(name);
    return value == (char *)-1 ? NULL : value;
}

/* `capability` with two parameters filled in (cup: row, column), or NULL. */
static inline const char *flux_tparm2(const char *capability, int first, int second) {
    return tparm(capability, first, second);
}

/* Sets up the terminal `name` for descriptor `fd` without printing; 1 when terminfo knows it. */
static inline int flux_setupterm(const char *name, int fd) {
    int status = 0;
    return setupterm(name, fd, &status) == OK && status == 1;
}
