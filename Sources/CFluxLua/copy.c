/* The deep copy of a state table: each table sized once, shared tables and cycles kept. */
#include "internal.h"

/* One deep copy's state: the stack index of the table of copies made so far (0 while no table has
 * nested), and the nesting depth now. */
typedef struct { int seen; int depth; } FluxCopy;

/* [..] -> [.., copy] (or [.., seen, copy] at the top). Copies the table at absolute index `src`:
 * values that are tables are copied, keys are kept. A table met twice is copied once, so shared tables
 * stay shared and cycles end; the table of copies that takes is made only when a table nests. */
static void flux_copytable(lua_State *L, int src, FluxCopy *c) {
    if (c->seen != 0) {
        lua_pushvalue(L, src);
        if (lua_rawget(L, c->seen) != LUA_TNIL) return; /* [.., copy] made before */
        lua_pop(L, 1);
    }
    if (++c->depth > FLUX_COPY_MAX_DEPTH) luaL_error(L, "table nested deeper than %d levels", FLUX_COPY_MAX_DEPTH);
    luaL_checkstack(L, 6, "table nested too deeply");
    lua_Integer count = 0;
    int nests = 0;
    lua_pushnil(L);
    while (lua_next(L, src) != 0) {                     /* counted first: the copy is sized once */
        nests |= lua_type(L, -1) == LUA_TTABLE;
        lua_pop(L, 1);
        count++;
    }
    if (nests && c->seen == 0) {                        /* only at the top: deeper levels come after */
        lua_newtable(L);
        c->seen = lua_gettop(L);
    }
    lua_Integer sequence = (lua_Integer)lua_rawlen(L, src);
    lua_createtable(L, (int)sequence, (int)(count > sequence ? count - sequence : 0));
    int copy = lua_gettop(L);
    if (c->seen != 0) {
        lua_pushvalue(L, src);
        lua_pushvalue(L, copy);
        lua_rawset(L, c->seen);
    }
    lua_pushnil(L);
    while (lua_next(L, src) != 0) {                     /* [.., copy, key, value] */
        if (lua_type(L, -1) == LUA_TTABLE) {
            flux_copytable(L, lua_gettop(L), c);        /* [.., copy, key, value, valuecopy] */
            lua_replace(L, -2);                         /* [.., copy, key, valuecopy] */
        }
        lua_pushvalue(L, -2);                           /* [.., copy, key, value, key] */
        lua_insert(L, -2);                              /* [.., copy, key, key, value] */
        lua_rawset(L, copy);                            /* [.., copy, key] */
    }
    c->depth--;
}

/* deepcopy(value) -> a copy of `value` whose tables are all new (metatables are not copied). */
static int flux_deepcopy(lua_State *L) {
    lua_settop(L, 1);
    if (lua_type(L, 1) == LUA_TTABLE) {
        FluxCopy c = {0, 0};
        flux_copytable(L, 1, &c);
    }
    return 1;
}

void flux_pushdeepcopy(lua_State *L) { lua_pushcfunction(L, flux_deepcopy); }
