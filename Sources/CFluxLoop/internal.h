/* What the files of CFluxLoop share. */
#ifndef FLUXSHELL_CFLUXLOOP_INTERNAL_H
#define FLUXSHELL_CFLUXLOOP_INTERNAL_H
#include <uv.h>
#include <string.h>

/* Hands an event to Swift's event function. */
void fluxloop_report(uint64_t id, int kind, int64_t a, int64_t b, const char *bytes, size_t length);
#endif
