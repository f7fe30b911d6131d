/*
 * xpcall whose message handler the budget and Ctrl-C reach.
 *
 * Lua calls a message handler where the error is raised, before it unwinds. An error the host's count hook
 * raises (the budget, an interrupt) or a script's hook raises is raised from inside a hook, where Lua runs
 * no hook (L->allowhook is off until the protected call unwinds): a script's handler that loops there could
 * never be stopped, and the first Ctrl-C would be ignored. So xpcall hands Lua a handler of its own that
 * calls the script's, except for those errors, which it passes on as they are — the call is being stopped,
 * or the error came from a hook, and the handler could not be. A handler that is debug.traceback is run as
 * if Lua had called it itself: its traceback starts at the same level.
 */
#include "internal.h"

/* The handler xpcall gives Lua: upvalue 1 is the script's. */
static int flux_xpcall_handler(lua_State *L) {
    FluxControl *control = flux_getcontrol(L);
    const void *error = lua_topointer(L, 1);
    if (control->depth > 0 && control->stop != FLUX_STOP_NONE) return 1; /* being stopped: no handler runs */
    if (error != NULL && error == control->hookerror) {                    /* raised by a hook, hooks off */
        control->hookerror = NULL;
        return 1;
    }
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    if (lua_tocfunction(L, -1) == flux_debugtraceback) {
        lua_pop(L, 1);
        return flux_debugtraceback(L);
    }
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

/* As lbaselib's finishpcall. */
static int flux_finishxpcall(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

/* xpcall(f, msgh, ...), as lbaselib's, with msgh wrapped. */
static int flux_xpcall(lua_State *L) {
    int status;
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, flux_xpcall_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, flux_finishxpcall);
    return flux_finishxpcall(L, status, 2);
}

void flux_openxpcall(lua_State *L) {
    lua_pushcfunction(L, flux_xpcall);
    lua_setglobal(L, "xpcall");
}
