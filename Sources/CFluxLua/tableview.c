/*
 * Read-only views of Lua tables (a "flux.view" userdata): the read-only handle on a Lua store's state and
 * every table in it. Their twin for states that live in Swift is swiftview.c ("flux.state").
 *
 * A view is a userdata whose user value is the table: a script can neither rawset into it nor reach the
 * table behind it, and its metatable is hidden (`__metatable`), so no script can redirect the reads of a
 * view another script holds. Views of nested tables are cached per table, weakly; a Lua store keeps the
 * view of its published state itself (flux_newview), so the subscribers of one change share one view
 * without a weak table growing by an entry per change. A view has no finalizer.
 */
#include <string.h>

#include "internal.h"

#define FLUX_VIEW_METATABLE "flux.view" /* a Swift state proxy's is "flux.state" */

/* registry: views[table] = its view, while the table lives */
static const char viewskey = 0;

/* [..] -> [.., mt]. The view metatable, kept in a registry slot of its own as well as under its name: found
 * without hashing. */
static void flux_pushviewmetatable(lua_State *L) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, flux_control(L)->viewmetatable);
}

/* [..] -> [.., metatable]. Raises the argument error luaL_checkudata would unless the value at idx is a
 * view. The metatable is left for the caller to return above (not popped: one call fewer on every read).
 * The functions hold no upvalue: the iterator __pairs hands out is within a script's reach, and
 * debug.getupvalue would hand it the metatable. The metatable is known by its address: the registry keeps
 * it, so no other object has it, and Lua never moves an object. A Swift store's state is named flux.state
 * too: refused, it is said which it is, not "flux.state expected, got flux.state". */
static void flux_checkview(lua_State *L, int idx) {
    if (lua_getmetatable(L, idx) && lua_topointer(L, -1) == flux_control(L)->viewmetatable_at) return;
    if (lua_type(L, idx) == LUA_TUSERDATA && luaL_getmetafield(L, idx, "__name") == LUA_TSTRING
        && strcmp(lua_tostring(L, -1), FLUX_PROXY_METATABLE) == 0)
        luaL_argerror(L, idx, "flux.state expected, got a Swift store's state (iterate it with what pairs(state) returns)");
    luaL_typeerror(L, idx, "flux.state");
}

/* [..] -> [.., metatable, table]. The table behind the view at `idx`; an error for anything else (a
 * metamethod called by hand). */
static void flux_pushtarget(lua_State *L, int idx) {
    flux_checkview(L, idx);
    lua_getiuservalue(L, idx, 1);
}

/* [.., view, t] -> [.., view]. A new userdata of no bytes and one user value made the view of the table t. */
static void flux_setview(lua_State *L) {
    lua_setiuservalue(L, -2, 1);
    flux_pushviewmetatable(L);
    lua_setmetatable(L, -2);
}

void flux_newview(lua_State *L, int table, int slot) {
    lua_newuserdatauv(L, 0, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, table);            /* [.., view, t] */
    flux_setview(L);
    if (slot == 0) return;
    lua_pushvalue(L, -1);
    lua_rawseti(L, LUA_REGISTRYINDEX, slot);             /* an existing key: allocates nothing */
}

void flux_pushview(lua_State *L) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &viewskey);         /* [.., t, views] */
    lua_pushvalue(L, -2);
    if (lua_rawget(L, -2) != LUA_TUSERDATA) {             /* [.., t, views, view?] */
        lua_pop(L, 1);
        lua_newuserdatauv(L, 0, 1);
        lua_pushvalue(L, -3);                             /* [.., t, views, view, t] */
        flux_setview(L);                                  /* [.., t, views, view] */
        lua_pushvalue(L, -3);
        lua_pushvalue(L, -2);
        lua_rawset(L, -4);                                /* views[t] = view */
    }
    lua_replace(L, -3);                                   /* [.., view, views] */
    lua_pop(L, 1);
}

/* view[key]: the table's value; a table comes as its view. */
static int flux_view_index(lua_State *L) {
    flux_pushtarget(L, 1);                               /* [view, key, mt, t] */
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) == LUA_TTABLE) flux_pushview(L);
    return 1;
}

static int flux_view_newindex(lua_State *L) {
    flux_checkview(L, 1);
    return luaL_error(L, "state is read-only (field '%s'): dispatch an action to change it", luaL_tolstring(L, 2, NULL));
}

static int flux_view_len(lua_State *L) {
    flux_pushtarget(L, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

/* The iterator __pairs returns: next over the table, tables as views. A script can call it by hand, with
 * more or fewer arguments: only the view and the key are read. */
static int flux_view_next(lua_State *L) {
    lua_settop(L, 2);
    flux_pushtarget(L, 1);                               /* [view, key, mt, t] */
    lua_pushvalue(L, 2);                                 /* [view, key, mt, t, key] */
    if (!lua_next(L, 4)) {
        lua_pushnil(L);
        return 1;
    }                                                    /* [view, key, mt, t, key', value] */
    if (lua_type(L, -1) == LUA_TTABLE) flux_pushview(L);
    return 2;
}

static int flux_view_pairs(lua_State *L) {
    flux_checkview(L, 1);
    lua_pushcfunction(L, flux_view_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

lua_Integer flux_viewlength(lua_State *L, int idx) {
    lua_Integer length;
    idx = lua_absindex(L, idx);
    if (!lua_getmetatable(L, idx)) return (lua_Integer)lua_rawlen(L, idx);
    if (lua_topointer(L, -1) != flux_control(L)->viewmetatable_at) {
        lua_pop(L, 1);
        return (lua_Integer)lua_rawlen(L, idx);
    }
    lua_getiuservalue(L, idx, 1);
    length = (lua_Integer)lua_rawlen(L, -1);
    lua_pop(L, 2);
    return length;
}

void flux_pushviewpairs(lua_State *L) {
    lua_pushcfunction(L, flux_view_next);
    lua_insert(L, -2);
    lua_pushnil(L);
}

void flux_openviews(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"__index", flux_view_index},
        {"__newindex", flux_view_newindex},
        {"__len", flux_view_len},
        {"__pairs", flux_view_pairs},
        {NULL, NULL},
    };
    luaL_newmetatable(L, FLUX_VIEW_METATABLE);
    luaL_setfuncs(L, methods, 0);
    lua_pushliteral(L, "flux.state");                    /* what tostring shows, as for a Swift state */
    lua_setfield(L, -2, "__name");
    flux_protectmetatable(L, "flux.state");
    flux_control(L)->viewmetatable_at = lua_topointer(L, -1);
    flux_control(L)->viewmetatable = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);                                     /* views[table] = view, while the table lives */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &viewskey);
}
