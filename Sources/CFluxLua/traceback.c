/*
 * Tracebacks, as lauxlib's luaL_traceback writes them, with a bounded search for a function's global name.
 * lauxlib looks for it in every module of package.loaded and every field of each, in C: a script that filled
 * package.loaded with a thousand places of a table of a million fields made each traceback run for minutes,
 * where neither the budget nor Ctrl-C reaches, and every error's message handler writes one (an interrupt's
 * too). Here the search reads at most FLUX_NAME_SEARCH pairs for each function; past them the function is
 * named as lauxlib names one it does not find (by the code that called it, or its place).
 */
#include <string.h>

#include "internal.h"

/* The pairs one function's name is looked for in: package.loaded and the standard libraries hold a few
 * hundred, a host's modules some more. */
#define FLUX_NAME_SEARCH 100000

/* Levels shown before and after the ones a long traceback skips, as lauxlib's. */
#define FLUX_LEVELS1 10
#define FLUX_LEVELS2 11

/* [.., table] -> [.., table] and 1 with the name of the value at objidx in the table pushed ("lib.field"
 * below the top level), or 0; lauxlib's findfield, counting down *left pairs. */
static int flux_findfield(lua_State *L, int objidx, int level, long long *left) {
    if (level == 0 || !lua_istable(L, -1)) return 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {                            /* [.., table, key, value] */
        if (--*left < 0) {
            lua_pop(L, 2);
            return 0;
        }
        if (lua_type(L, -2) == LUA_TSTRING) {
            if (lua_rawequal(L, objidx, -1)) {
                lua_pop(L, 1);                           /* [.., table, key] */
                return 1;
            }
            if (flux_findfield(L, objidx, level - 1, left)) { /* [.., table, key, value, name] */
                lua_pushliteral(L, ".");
                lua_replace(L, -3);
                lua_concat(L, 3);                        /* [.., table, key.name] */
                return 1;
            }
        }
        lua_pop(L, 1);
    }
    return 0;
}

/* [..] -> [.., name] and 1 when the function of `ar` is found in package.loaded, else [..] and 0. */
static int flux_pushglobalfuncname(lua_State *L, lua_Debug *ar) {
    int top = lua_gettop(L);
    long long left = FLUX_NAME_SEARCH;
    lua_getinfo(L, "f", ar);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    luaL_checkstack(L, 6, "not enough stack");
    if (!flux_findfield(L, top + 1, 2, &left)) {
        lua_settop(L, top);
        return 0;
    }
    if (strncmp(lua_tostring(L, -1), LUA_GNAME ".", 3) == 0) { /* a global: its name without "_G." */
        lua_pushstring(L, lua_tostring(L, -1) + 3);
        lua_remove(L, -2);
    }
    lua_copy(L, -1, top + 1);
    lua_settop(L, top + 1);
    return 1;
}

/* [..] -> [.., text]: how the traceback names the function of `ar`. */
static void flux_pushfuncname(lua_State *L, lua_Debug *ar) {
    if (flux_pushglobalfuncname(L, ar)) {
        lua_pushfstring(L, "function '%s'", lua_tostring(L, -1));
        lua_remove(L, -2);
    } else if (*ar->namewhat != '\0') {
        lua_pushfstring(L, "%s '%s'", ar->namewhat, ar->name);
    } else if (*ar->what == 'm') {
        lua_pushliteral(L, "main chunk");
    } else if (*ar->what != 'C') {
        lua_pushfstring(L, "function <%s:%d>", ar->short_src, ar->linedefined);
    } else {
        lua_pushliteral(L, "?");
    }
}

/* The level of the last function on L's stack. */
static int flux_lastlevel(lua_State *L) {
    lua_Debug ar;
    int li = 1, le = 1;
    while (lua_getstack(L, le, &ar)) {
        li = le;
        le *= 2;
    }
    while (li < le) {
        int m = (li + le) / 2;
        if (lua_getstack(L, m, &ar)) li = m + 1;
        else le = m;
    }
    return le - 1;
}

void flux_traceback(lua_State *L, lua_State *L1, const char *msg, int level) {
    luaL_Buffer b;
    lua_Debug ar;
    int last = flux_lastlevel(L1);
    int limit2show = (last - level > FLUX_LEVELS1 + FLUX_LEVELS2) ? FLUX_LEVELS1 : -1;
    luaL_buffinit(L, &b);
    if (msg) {
        luaL_addstring(&b, msg);
        luaL_addchar(&b, '\n');
    }
    luaL_addstring(&b, "stack traceback:");
    while (lua_getstack(L1, level++, &ar)) {
        if (limit2show-- == 0) {
            int n = last - level - FLUX_LEVELS2 + 1;
            lua_pushfstring(L, "\n\t...\t(skipping %d levels)", n);
            luaL_addvalue(&b);
            level += n;
        } else {
            lua_getinfo(L1, "Slnt", &ar);
            if (ar.currentline <= 0) lua_pushfstring(L, "\n\t%s: in ", ar.short_src);
            else lua_pushfstring(L, "\n\t%s:%d: in ", ar.short_src, ar.currentline);
            luaL_addvalue(&b);
            flux_pushfuncname(L, &ar);
            luaL_addvalue(&b);
            if (ar.istailcall) luaL_addstring(&b, "\n\t(...tail calls...)");
        }
    }
    luaL_pushresult(&b);
}
