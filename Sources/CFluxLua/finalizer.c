/*
 * Scripts' finalizers, bounded like any other call.
 *
 * Lua runs a finalizer with hooks off on the thread that collects (lgc.c, GCTM), so neither the
 * instruction budget nor Ctrl-C reaches a __gc that loops: the shell would hang at a collection step or at
 * close. So no object a script gives a finalizer is marked for finalization by Lua itself:
 * - setmetatable and debug.setmetatable set a metatable on a table with its __gc field taken out for that
 *   moment (Lua marks an object only when its metatable has __gc as it is set), and
 * - give the table a sentinel instead: a userdata of the host's, found through a weak-keyed table only
 *   while the table lives (an ephemeron), so the two become garbage together. The sentinel's __gc, a C
 *   function, looks up the table's __gc as Lua would at that moment and runs it in a coroutine of its own,
 *   where the host's hook reaches it, with a budget of its own (flux_resumebounded).
 * A finalizer that fails, loops past its budget or is interrupted is reported through control->warn (the
 * shell shows it) and the collection goes on. Finalizers run once, in the reverse order of the
 * setmetatable calls that gave them, and see the object as Lua's do.
 *
 * debug.setmetatable refuses a full userdata: every one a script can reach is already marked by Lua
 * (files, the host's objects), and Lua would call whatever __gc its new metatable holds with hooks off.
 */
#include <stdio.h>
#include "internal.h"

#define FLUX_SENTINELS_KEY "flux.sentinels"
#define FLUX_SENTINEL_METATABLE "flux.sentinel"

/* The budget of one finalizer: the state's when it is smaller, so a finalizer never outlasts a call. */
static long long flux_finalizerbudget(FluxControl *control) {
    return control->budget > 0 && control->budget < FLUX_FINALIZER_BUDGET ? control->budget : FLUX_FINALIZER_BUDGET;
}

/* Reports a finalizer's error: to Swift when it listens, else on standard error as lua.c's warnings. */
static void flux_reportfinalizer(FluxControl *control, const char *message) {
    if (control->warn != NULL) control->warn(control, message);
    else fprintf(stderr, "%s\n", message);
}

/* __gc of a sentinel: runs the finalizer its table has now. Upvalue 1 is the sentinel metatable: called by
 * hand on anything else it does nothing, and a sentinel gives up its table first, so it runs once. */
static int flux_sentinel_gc(lua_State *L) {
    FluxControl *control = flux_getcontrol(L);
    lua_State *co;
    int mine, status, results;
    if (lua_type(L, 1) != LUA_TUSERDATA || !lua_getmetatable(L, 1)) return 0;
    mine = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (!mine || lua_getiuservalue(L, 1, 1) != LUA_TTABLE) return 0; /* [sentinel, object] */
    lua_pushnil(L);
    lua_setiuservalue(L, 1, 1);
    /* The object may be given a finalizer again, by its finalizer too: it needs a new sentinel then. */
    if (lua_getfield(L, LUA_REGISTRYINDEX, FLUX_SENTINELS_KEY) == LUA_TTABLE) { /* [sentinel, object, sentinels] */
        lua_pushvalue(L, 2);
        lua_pushnil(L);
        lua_rawset(L, -3);
    }
    lua_pop(L, 1);
    if (!lua_getmetatable(L, 2)) return 0;                  /* [sentinel, object, mt] */
    lua_pushliteral(L, "__gc");
    lua_rawget(L, -2);                                      /* [sentinel, object, mt, gc] */
    /* What Lua would call; anything else (a placeholder `true` never replaced) is no finalizer. */
    if (lua_type(L, -1) != LUA_TFUNCTION && luaL_getmetafield(L, -1, "__call") == LUA_TNIL) return 0;
    lua_settop(L, 4);
    co = lua_newthread(L);                                  /* [sentinel, object, mt, gc, co] */
    lua_pushvalue(L, -2);
    lua_pushvalue(L, 2);
    lua_xmove(L, co, 2);
    status = flux_resumebounded(L, co, 1, flux_finalizerbudget(control), &results);
    if (status == LUA_OK) return 0;
    if (status == LUA_YIELD) {
        lua_pushliteral(L, "error in finalizer: attempt to yield from a finalizer");
    } else {
        lua_xmove(co, L, 1);                                /* [.., co, err] */
        lua_pushliteral(L, "error in finalizer: ");
        if (lua_type(L, -2) == LUA_TSTRING || lua_type(L, -2) == LUA_TNUMBER) lua_pushvalue(L, -2);
        else lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, -2));
        lua_concat(L, 2);
    }
    flux_reportfinalizer(control, lua_tostring(L, -1));
    return 0;
}

/* [..] -> [..]. Gives the table at `idx` a sentinel unless it has one. */
static void flux_arm(lua_State *L, int idx) {
    /* The registry is within a script's reach (debug.getregistry): what it replaced is an error, not a
     * crash. */
    if (lua_getfield(L, LUA_REGISTRYINDEX, FLUX_SENTINELS_KEY) != LUA_TTABLE      /* [.., sentinels] */
        || luaL_getmetatable(L, FLUX_SENTINEL_METATABLE) != LUA_TTABLE)        /* [.., sentinels, mt] */
        luaL_error(L, "cannot give a finalizer: the host's table of finalizers was replaced");
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -3) != LUA_TNIL) {
        lua_pop(L, 3);
        return;
    }
    lua_pop(L, 1);
    lua_pushvalue(L, idx);                                  /* [.., sentinels, mt, object] */
    lua_newuserdatauv(L, 0, 1);                             /* [.., sentinels, mt, object, sentinel] */
    lua_pushvalue(L, idx);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, -3);
    lua_setmetatable(L, -2);                                /* marked by Lua: its __gc is the host's */
    lua_rawset(L, -4);
    lua_pop(L, 2);
}

/* Sets the metatable at 2 (a table or nil) on the table at 1, with no __gc seen by Lua; a sentinel runs
 * the finalizer instead. The sentinel is made first: a memory error then changes nothing. */
static void flux_setmetatablebounded(lua_State *L) {
    lua_settop(L, 2);
    if (lua_type(L, 1) == LUA_TTABLE && lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");                         /* [t, mt, "__gc"] */
        lua_pushvalue(L, -1);
        if (lua_rawget(L, 2) != LUA_TNIL) {                 /* [t, mt, "__gc", gc] */
            flux_arm(L, 1);
            lua_pushvalue(L, 3);
            lua_pushnil(L);
            lua_rawset(L, 2);                               /* mt.__gc = nil: an existing key, no allocation */
            lua_pushvalue(L, 2);
            lua_setmetatable(L, 1);
            lua_rawset(L, 2);                               /* mt.__gc back as it was */
            lua_settop(L, 1);
            return;
        }
        lua_settop(L, 2);
    }
    lua_setmetatable(L, 1);
}

/* setmetatable(table, metatable), as in lbaselib. */
static int flux_setmetatable(lua_State *L) {
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    flux_setmetatablebounded(L);
    return 1;
}

/* debug.setmetatable(value, metatable), as in ldblib, but never on a full userdata. */
static int flux_debugsetmetatable(lua_State *L) {
    int t = lua_type(L, 2);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    luaL_argcheck(L, lua_type(L, 1) != LUA_TUSERDATA, 1, "cannot change the metatable of a userdata");
    flux_setmetatablebounded(L);
    return 1;
}

void flux_openfinalizers(lua_State *L) {
    lua_newtable(L);                                        /* sentinels[object] = sentinel, weak keys */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, FLUX_SENTINELS_KEY);
    luaL_newmetatable(L, FLUX_SENTINEL_METATABLE);          /* [mt] */
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, flux_sentinel_gc, 1);
    lua_setfield(L, -2, "__gc");
    flux_protectmetatable(L, "finalizer");
    lua_pop(L, 1);
    lua_pushcfunction(L, flux_setmetatable);
    lua_setglobal(L, "setmetatable");
    if (lua_getglobal(L, "debug") == LUA_TTABLE) {
        lua_pushcfunction(L, flux_debugsetmetatable);
        lua_setfield(L, -2, "setmetatable");
    }
    lua_pop(L, 1);
}
