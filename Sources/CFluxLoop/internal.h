/* What the files of CFluxLoop share. */
#ifndef FLUXSHELL_CFLUXLOOP_INTERNAL_H
#define FLUXSHELL_CFLUXLOOP_INTERNAL_H
#include <uv.h>
#include <string.h>

/* The calling thread's loop, made on first use: the shell runs one, on its main thread; each thread of a
 * test run that uses effects gets its own, so none shares libuv's (single-threaded) state. */
uv_loop_t *fluxloop_loop(void);

/* Hands an event to Swift's event function. */
void fluxloop_report(uint64_t id, int kind, int64_t a, int64_t b, const char *bytes, size_t length);
#endif
