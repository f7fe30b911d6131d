/* libuv as Debian's libuv1-dev installs it: the event loop under the shell (timers, processes, file watches). */
#ifndef FLUX_CUV_H
#define FLUX_CUV_H
#include <uv.h>
#endif
