/*
 * Telling a store's Lua subscribers of a change: a protected call each, the message handler pushed once for
 * all of them (LuaSubscribers.swift keeps the list).
 */
#include "internal.h"

int flux_notify(lua_State *L, int handler, int from, int *to, int *status, int *stop) {
    int subscribers = handler + 1, view = lua_gettop(L);
    int pair;
    /* Every pair the table holds now: a subscriber added by a call below first hears the next change. */
    if (*to < 0) *to = (int)(lua_rawlen(L, subscribers) / 2);
    for (pair = from; pair <= *to; pair++) {
        int function = 2 * pair - 1, previous = 2 * pair;
        if (lua_rawgeti(L, subscribers, function) == LUA_TBOOLEAN) { /* cancelled */
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, view);                             /* [.., f, view] */
        if (lua_rawgeti(L, subscribers, previous) == LUA_TBOOLEAN) { /* none yet: nil to the function */
            lua_pop(L, 1);
            lua_pushnil(L);
        }
        /* The view is the subscriber's previous from now on: set before the call, so that a call cancelling
         * its subscriber (which clears the pair) leaves the pair cleared. Assigning an existing key allocates
         * nothing. */
        lua_pushvalue(L, view);
        lua_rawseti(L, subscribers, previous);
        *status = flux_pcallwith(L, 2, 0, handler, stop);   /* [..] or [.., message] */
        if (*status != LUA_OK) return pair;
    }
    return 0;
}

int flux_preparenotify(lua_State *L, int subscribers) {
    /* the handler, the table, a view (a Swift state's with its metatable below), and a call's function,
     * arguments and the view stored as previous */
    if (!lua_checkstack(L, FLUX_NOTIFY_SPACE)) return 0;
    flux_pushmsghandler(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, subscribers);
    return 1;
}
