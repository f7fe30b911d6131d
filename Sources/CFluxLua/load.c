/*
 * What code a script can load.
 * - Source text only: load, loadfile, dofile and require's searcher of Lua files refuse precompiled chunks,
 *   as the host's own loads do (flux_load). Lua does not check bytecode: a crafted chunk reads and writes
 *   memory out of bounds and crashes the shell.
 * - package.loadlib hands out a C library's Lua module entry points (luaopen_*) only, as require finds
 *   them: any other symbol is no lua_CFunction, and called as one it crashes the shell.
 * Each does what the base and package libraries' do otherwise.
 */
#include <string.h>
#include "internal.h"

/* Gives the call the mode "t" at `arg` (the mode argument of load or loadfile): a script's mode that
 * allows text stays text only, one that allows binary chunks alone is refused. The arguments after it keep
 * their count (load and loadfile tell a nil environment from none). */
static void flux_textmode(lua_State *L, int arg) {
    const char *mode = luaL_optstring(L, arg, "bt");
    if (strchr(mode, 't') == NULL) luaL_argerror(L, arg, "precompiled chunks cannot be loaded");
    if (lua_gettop(L) < arg) lua_settop(L, arg);
    lua_pushliteral(L, "t");
    lua_replace(L, arg);
}

/* load or loadfile (upvalue 1, the library's) with its mode at upvalue 2's index made "t". */
static int flux_loadtext(lua_State *L) {
    int n;
    flux_textmode(L, (int)lua_tointeger(L, lua_upvalueindex(2)));
    n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

static int flux_dofilecont(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    (void)ctx;
    return lua_gettop(L) - 1;
}

/* dofile([filename]), as in lbaselib, text only. */
static int flux_dofile(lua_State *L) {
    const char *filename = luaL_optstring(L, 1, NULL);
    lua_settop(L, 1);
    if (luaL_loadfilex(L, filename, "t") != LUA_OK) return lua_error(L);
    lua_callk(L, 0, LUA_MULTRET, 0, flux_dofilecont);
    return flux_dofilecont(L, 0, 0);
}

/* require's searcher of Lua files, as loadlib.c's, text only: upvalue 1 is package.searchpath as the
 * library made it, upvalue 2 the package table (whose `path` a script may change, as with Lua's). */
static int flux_searchtext(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    const char *filename;
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    if (lua_getfield(L, lua_upvalueindex(2), "path") != LUA_TSTRING)
        luaL_error(L, "'package.path' must be a string");
    lua_call(L, 2, 2);                                   /* [name, filename, nil] or [name, nil, message] */
    if (lua_isnil(L, 2)) return 1;                       /* the message: not found in this path */
    filename = lua_tostring(L, 2);
    if (luaL_loadfilex(L, filename, "t") != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, filename, lua_tostring(L, -1));
    lua_pushvalue(L, 2);                                 /* [.., loader, filename] */
    return 2;
}

/* package.loadlib(path, funcname), upvalue 1 being the library's: funcname "*" (the library linked only)
 * or a module's entry point. */
static int flux_loadlib(lua_State *L) {
    const char *init = luaL_checkstring(L, 2);
    luaL_checkstring(L, 1);
    lua_settop(L, 2);
    if (strcmp(init, "*") != 0 && strncmp(init, "luaopen_", 8) != 0) {
        luaL_pushfail(L);
        lua_pushfstring(L, "'%s' is not a Lua module's entry point (luaopen_*)", init);
        lua_pushliteral(L, "init");
        return 3;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, LUA_MULTRET);
    return lua_gettop(L);
}

/* [.., lib] -> [.., lib]. Replaces lib[name], the library's function, with flux_loadtext around it. */
static void flux_wraploader(lua_State *L, const char *name, int modearg) {
    lua_getfield(L, -1, name);
    lua_pushinteger(L, modearg);
    lua_pushcclosure(L, flux_loadtext, 2);
    lua_setfield(L, -2, name);
}

void flux_openload(lua_State *L) {
    int top = lua_gettop(L);
    lua_pushglobaltable(L);
    flux_wraploader(L, "load", 3);
    flux_wraploader(L, "loadfile", 2);
    lua_pushcfunction(L, flux_dofile);
    lua_setfield(L, -2, "dofile");
    lua_pop(L, 1);
    if (lua_getglobal(L, "package") == LUA_TTABLE && lua_getfield(L, -1, "searchers") == LUA_TTABLE) {
        lua_getfield(L, -2, "searchpath");               /* [package, searchers, searchpath] */
        lua_pushvalue(L, -3);
        lua_pushcclosure(L, flux_searchtext, 2);
        lua_rawseti(L, -2, 2);                           /* the second searcher is Lua files' */
        lua_pop(L, 1);                                   /* [package] */
        lua_getfield(L, -1, "loadlib");
        lua_pushcclosure(L, flux_loadlib, 1);
        lua_setfield(L, -2, "loadlib");
    }
    lua_settop(L, top);
}
