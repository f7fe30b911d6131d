/*
 * The debug library, kept to what it may do in a host: a script may inspect its own code, but not reach
 * the host's objects through the back door.
 * - debug.getmetatable honours the `__metatable` field of the host's metatables (and open files'), as
 *   getmetatable does: they hold a __gc that Lua runs with hooks off, so a script that could rewrite one
 *   would run code beyond every budget and Ctrl-C. A script's own metatables it returns as they are.
 * - debug.getregistry is refused: the registry holds those metatables and the host's own tables.
 * - debug.setupvalue refuses a C function: the host's C closures trust their upvalues (a Swift function's
 *   box, a draft's table, a wrapped coroutine), as Lua's own libraries do; debug.getupvalue refuses one
 *   too, since those upvalues are tables no script may hold (the published state a draft reads through,
 *   the drafts' bookkeeping, the names `flux.dispatch` has resolved).
 * - debug.getuservalue and debug.setuservalue refuse a full userdata: a script makes none, and the host's
 *   keep what no script may reach in their user values (the published state under a read-only view).
 * - debug.traceback writes ldblib's text, its search for global names bounded as the host's own (traceback.c).
 * - debug.getlocal and debug.setlocal refuse the frame of a C function (its stack holds the host's values:
 *   the published state a handler's draft reads through), and debug.getinfo leaves out a C function it
 *   would return (`func`): a script cannot call the host's C functions with arguments of its own.
 */
#include <limits.h>
#include "internal.h"

/* Whether the metatable on top is one of the registry's (luaL_newmetatable's: its __name names it there),
 * as the host's and the io library's are; a script's never is, since the registry is out of its reach. */
static int flux_isregistered(lua_State *L) {
    int registered = 0;
    lua_pushliteral(L, "__name");
    if (lua_rawget(L, -2) == LUA_TSTRING) {         /* [mt, name] */
        lua_rawget(L, LUA_REGISTRYINDEX);           /* [mt, registry[name]] */
        registered = lua_rawequal(L, -1, -2);
    }
    lua_pop(L, 1);
    return registered;
}

/* debug.getmetatable(value): the metatable; for the host's, its `__metatable` field, as getmetatable. */
static int flux_debuggetmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    if (!lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    /* A userdata's metatable is the host's or io's (debug.setmetatable refuses a userdata). */
    if (lua_type(L, 1) != LUA_TUSERDATA && !flux_isregistered(L)) return 1;
    lua_pushliteral(L, "__metatable");
    if (lua_rawget(L, -2) != LUA_TNIL) return 1; /* [mt, protected] */
    lua_pop(L, 1);
    return 1;
}

static int flux_debuggetregistry(lua_State *L) {
    return luaL_error(L, "debug.getregistry is not available: the registry holds the host's objects");
}

/* debug.setupvalue(f, up, value), as in ldblib, but never on a C function. */
static int flux_debugsetupvalue(lua_State *L) {
    const char *name;
    luaL_checkany(L, 3);
    luaL_checktype(L, 1, LUA_TFUNCTION);
    luaL_argcheck(L, !lua_iscfunction(L, 1), 1, "cannot change the upvalues of a C function");
    name = lua_setupvalue(L, 1, (int)luaL_checkinteger(L, 2));
    if (name == NULL) return 0;
    lua_pushstring(L, name);
    return 1;
}

/* debug.getupvalue(f, up), as in ldblib, but never of a C function. */
static int flux_debuggetupvalue(lua_State *L) {
    const char *name;
    luaL_checktype(L, 1, LUA_TFUNCTION);
    luaL_argcheck(L, !lua_iscfunction(L, 1), 1, "cannot read the upvalues of a C function");
    name = lua_getupvalue(L, 1, (int)luaL_checkinteger(L, 2));
    if (name == NULL) return 0;
    lua_pushstring(L, name);
    lua_insert(L, -2);
    return 2;
}

/* debug.getuservalue(u, n): fail for a value that is no full userdata, as in ldblib; an error for one. */
static int flux_debuggetuservalue(lua_State *L) {
    if (lua_type(L, 1) != LUA_TUSERDATA) {
        luaL_pushfail(L);
        return 1;
    }
    return luaL_argerror(L, 1, "cannot read the user values of the host's userdata");
}

static int flux_debugsetuservalue(lua_State *L) {
    luaL_checktype(L, 1, LUA_TUSERDATA);
    return luaL_argerror(L, 1, "cannot change the user values of the host's userdata");
}

/* debug.getlocal / debug.setlocal ([thread,] level, n [, value]), upvalue 1 being ldblib's and upvalue 2
 * whether it is setlocal: refused when the frame
 * at `level` runs a C function; otherwise ldblib's, its level one deeper when it counts this function's
 * thread (this function is then its caller). A function instead of a level (parameter names) is as in
 * ldblib. */
static int flux_debuglocal(lua_State *L) {
    int arg = lua_type(L, 1) == LUA_TTHREAD, n = lua_gettop(L), i;
    lua_State *L1 = arg ? lua_tothread(L, 1) : L;
    lua_Debug ar;
    luaL_checkinteger(L, arg + 2);
    if (lua_toboolean(L, lua_upvalueindex(2))) luaL_checkany(L, arg + 3);
    if (lua_type(L, arg + 1) != LUA_TFUNCTION) {
        lua_Integer level = luaL_checkinteger(L, arg + 1);
        if (level < 0 || level > INT_MAX - 1 || !lua_getstack(L1, (int)level, &ar))
            return luaL_argerror(L, arg + 1, "level out of range");
        lua_getinfo(L1, "S", &ar);
        if (ar.what[0] == 'C') return luaL_argerror(L, arg + 1, "cannot reach the locals of a C function");
        if (L1 == L) {
            lua_pushinteger(L, level + 1);
            lua_replace(L, arg + 1);
        }
    }
    luaL_checkstack(L, n + 1, "too many arguments");
    lua_pushvalue(L, lua_upvalueindex(1));
    for (i = 1; i <= n; i++) lua_pushvalue(L, i);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L) - n;
}

/* debug.getinfo, upvalue 1 being ldblib's: as it, its level one deeper as in flux_debuglocal, with no C
 * function in `func`. */
static int flux_debuggetinfo(lua_State *L) {
    int arg = lua_type(L, 1) == LUA_TTHREAD, n = lua_gettop(L), i;
    if (!arg && lua_type(L, 1) == LUA_TNUMBER) {
        lua_pushinteger(L, luaL_checkinteger(L, 1) + 1);
        lua_replace(L, 1);
    }
    luaL_checkstack(L, n + 1, "too many arguments");
    lua_pushvalue(L, lua_upvalueindex(1));
    for (i = 1; i <= n; i++) lua_pushvalue(L, i);
    lua_call(L, n, 1);
    if (lua_type(L, -1) == LUA_TTABLE) {
        if (lua_getfield(L, -1, "func") == LUA_TFUNCTION && lua_iscfunction(L, -1)) {
            lua_pushnil(L);
            lua_setfield(L, -3, "func");
        }
        lua_pop(L, 1);
    }
    return 1;
}

/* debug.traceback([thread,] [message [, level]]), as in ldblib. */
int flux_debugtraceback(lua_State *L) {
    int arg = lua_type(L, 1) == LUA_TTHREAD;
    lua_State *L1 = arg ? lua_tothread(L, 1) : L;
    const char *msg = lua_tostring(L, arg + 1);
    if (msg == NULL && !lua_isnoneornil(L, arg + 1)) {   /* a message that is no string comes back as it is */
        lua_pushvalue(L, arg + 1);
        return 1;
    }
    flux_traceback(L, L1, msg, (int)luaL_optinteger(L, arg + 2, L == L1 ? 1 : 0));
    return 1;
}

void flux_opendebug(lua_State *L) {
    if (lua_getglobal(L, "debug") == LUA_TTABLE) {
        lua_pushcfunction(L, flux_debuggetmetatable);
        lua_setfield(L, -2, "getmetatable");
        lua_pushcfunction(L, flux_debuggetregistry);
        lua_setfield(L, -2, "getregistry");
        lua_pushcfunction(L, flux_debugsetupvalue);
        lua_setfield(L, -2, "setupvalue");
        lua_pushcfunction(L, flux_debuggetupvalue);
        lua_setfield(L, -2, "getupvalue");
        lua_getfield(L, -1, "getlocal");
        lua_pushboolean(L, 0);
        lua_pushcclosure(L, flux_debuglocal, 2);
        lua_setfield(L, -2, "getlocal");
        lua_getfield(L, -1, "setlocal");
        lua_pushboolean(L, 1);
        lua_pushcclosure(L, flux_debuglocal, 2);
        lua_setfield(L, -2, "setlocal");
        lua_getfield(L, -1, "getinfo");
        lua_pushcclosure(L, flux_debuggetinfo, 1);
        lua_setfield(L, -2, "getinfo");
        lua_pushcfunction(L, flux_debuggetuservalue);
        lua_setfield(L, -2, "getuservalue");
        lua_pushcfunction(L, flux_debugsetuservalue);
        lua_setfield(L, -2, "setuservalue");
        lua_pushcfunction(L, flux_debugtraceback);
        lua_setfield(L, -2, "traceback");
    }
    lua_pop(L, 1);
}
