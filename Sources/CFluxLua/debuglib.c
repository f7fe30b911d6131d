/*
 * The debug library, kept to what it may do in a host: a script may inspect its own code, but not reach
 * the host's objects through the back door.
 * - debug.getmetatable honours the `__metatable` field of the host's metatables (and open files'), as
 *   getmetatable does: they hold a __gc that Lua runs with hooks off, so a script that could rewrite one
 *   would run code beyond every budget and Ctrl-C. A script's own metatables it returns as they are.
 * - debug.getregistry is refused: the registry holds those metatables and the host's own tables.
 * - debug.setupvalue refuses a C function: the host's C closures trust their upvalues (a Swift function's
 *   box, a draft's table, a wrapped coroutine), as Lua's own libraries do. debug.getupvalue refuses one
 *   too: a table a C closure holds (the names `flux.dispatch` has resolved) is changed through its value.
 */
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

/* debug.getupvalue(f, up), as in ldblib, but never on a C function. */
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
    }
    lua_pop(L, 1);
}
