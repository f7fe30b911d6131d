/* What a Lua store's undo step keeps alive: the tables of one state that another does not share. */
#include "internal.h"

#define FLUX_TABLE_HEADER 56 /* a Lua 5.4 table's header, as it lays one out */
#define FLUX_TABLE_SLOT 32   /* one pair */
#define FLUX_COST_MAX_DEPTH 256

/* The bytes of the table at absolute index t that the value at absolute index other (the table the other
 * state holds in the same place, or anything else) does not share; counts down *pairs and stops at 0. */
static long long flux_cost(lua_State *L, int t, int other, long long *pairs, int depth) {
    long long bytes;
    int othertable;
    if (lua_type(L, t) != LUA_TTABLE) return 0;
    othertable = lua_type(L, other) == LUA_TTABLE;
    if (othertable && lua_rawequal(L, t, other)) return 0;
    bytes = FLUX_TABLE_HEADER;
    if (depth >= FLUX_COST_MAX_DEPTH || !lua_checkstack(L, 4)) return bytes;
    lua_pushnil(L);
    while (lua_next(L, t)) {                             /* [.., key, value] */
        if (*pairs <= 0) {
            lua_pop(L, 2);
            break;
        }
        (*pairs)--;
        bytes += FLUX_TABLE_SLOT;
        if (lua_type(L, -1) == LUA_TTABLE) {
            if (othertable) {
                lua_pushvalue(L, -2);
                lua_rawget(L, other);                    /* [.., key, value, other[key]] */
            } else {
                lua_pushnil(L);
            }
            bytes += flux_cost(L, lua_gettop(L) - 1, lua_gettop(L), pairs, depth + 1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);                                   /* [.., key] */
    }
    return bytes;
}

/* One walk of the old state's top table for both questions a handler's result asks: is it the same state,
 * and if not, what does the old one cost beside it. The count is flux_tablecost's, to the pair. */
int flux_samestate(lua_State *L, int old, int now, long long *bytes) {
    long long pairs = FLUX_COST_BUDGET, left = FLUX_COST_BUDGET;
    int same = 1;
    old = lua_absindex(L, old);
    now = lua_absindex(L, now);
    *bytes = FLUX_TABLE_HEADER;
    luaL_checkstack(L, 6, "state nested too deeply");
    lua_pushnil(L);
    while (lua_next(L, old)) {                           /* [.., key, va] */
        lua_pushvalue(L, -2);
        lua_rawget(L, now);                              /* [.., key, va, vb] */
        if (pairs > 0) {
            pairs--;
            *bytes += FLUX_TABLE_SLOT;
            if (lua_type(L, -2) == LUA_TTABLE) *bytes += flux_cost(L, lua_gettop(L) - 1, lua_gettop(L), &pairs, 1);
        }
        if (same && (lua_isnil(L, -1) || !flux_sameshape(L, -2, -1, 2, &left))) same = 0;
        lua_pop(L, 2);
    }
    return same && flux_keysin(L, now, old);             /* no key only the new state has */
}

long long flux_flatcost(long long pairs) {
    return FLUX_TABLE_HEADER + FLUX_TABLE_SLOT * (pairs < FLUX_COST_BUDGET ? pairs : FLUX_COST_BUDGET);
}

void flux_comparebegin(FluxCompare *c) {
    c->same = 1;
    c->matched = 0;
    c->pairs = FLUX_COST_BUDGET;
    c->bytes = FLUX_TABLE_HEADER;
    c->left = FLUX_COST_BUDGET;
}

/* [.., key, value] of the new state: the pair compared with the old state's (at absolute index old), and the
 * old one counted as flux_samestate counts it. */
void flux_comparepair(lua_State *L, int old, FluxCompare *c) {
    luaL_checkstack(L, 6, "state nested too deeply");
    lua_pushvalue(L, -2);
    if (lua_rawget(L, old) == LUA_TNIL) {                /* [.., key, value, oldvalue] */
        c->same = 0;                                     /* a key only the new state has */
    } else {
        c->matched++;
        if (c->pairs > 0) {
            c->pairs--;
            c->bytes += FLUX_TABLE_SLOT;
            if (lua_type(L, -1) == LUA_TTABLE) c->bytes += flux_cost(L, lua_gettop(L), lua_gettop(L) - 1, &c->pairs, 1);
        }
        if (c->same && !flux_sameshape(L, -1, -2, 2, &c->left)) c->same = 0;
    }
    lua_pop(L, 1);
}

long long flux_tablecost(lua_State *L, int t, int shared, long long budget) {
    long long pairs = budget;
    return flux_cost(L, lua_absindex(L, t), lua_absindex(L, shared), &pairs, 0);
}
