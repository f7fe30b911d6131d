/* Lua 5.4 as Debian's liblua5.4-dev installs it: the C API, the auxiliary library, the standard libraries. */
#ifndef FLUX_CLUA_H
#define FLUX_CLUA_H
#include <lua5.4/lua.h>
#include <lua5.4/lauxlib.h>
#include <lua5.4/lualib.h>
#endif
