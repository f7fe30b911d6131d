/*
 * Views of Swift stores' states (a "flux.state" userdata): the read-only handle on a state that lives in Swift.
 * Their twin for Lua tables is tableview.c ("flux.view"); a script reads both alike.
 *
 * A view is a userdata holding the slot of its state in the host's table of published states
 * (StateProxies.swift) and that slot's generation; it has no finalizer and no user value, so making and
 * collecting one is cheap. Slots come in batches, and every view of a batch has the batch's own metatable
 * (a copy of the host's, marked as the host's): a key of a weak-keyed table while it lives, the host frees
 * a batch once its metatable is no key any more (flux_markproxies), that is once none of its views can be
 * reached. Lua clears weak keys after it has brought back what finalizers will see, so a view only a
 * finalizer can reach keeps its batch, and reads its state, to the end.
 *
 * `view.field` is a C function that checks the view's metatable for the host's mark and calls the host's
 * reader directly, as the trampoline calls a Swift function: without the cap, the error raised once Swift
 * has returned. A field the host told C where to find (a stored Int, Double or Bool: flux_setdirectslots)
 * is loaded here without calling Swift at all, when the slot still holds the view's generation.
 */
#include <stdint.h>
#include <string.h>
#include "internal.h"

/* 8 bytes: the smaller the view, the less often the collector runs. The host's slots and generations fit
 * (StateProxies.swift). */
typedef struct FluxProxy {
    uint32_t slot;
    uint32_t generation;
} FluxProxy;

/* The reader's userdata: `context` first, so that the box metatable's __gc releases it (flux_box_gc). Its
 * address is the mark ([FLUX_PROXY_MARK] of a batch's metatable, a light userdata) of the host's views. */
typedef struct FluxProxyReader {
    void *context;
    FluxProxyRead read;
    const FluxDirectSlot *slots;
    lua_Integer count;
} FluxProxyReader;

/* Where a batch's metatable keeps the host's mark and the batch's number. */
#define FLUX_PROXY_MARK 1
#define FLUX_PROXY_BATCH 2

/* Whether the value at idx is a view of the host whose mark is `mark`. */
static int flux_isproxy(lua_State *L, int idx, const void *mark) {
    int mine;
    if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return 0;
    mine = lua_rawgeti(L, -1, FLUX_PROXY_MARK) == LUA_TLIGHTUSERDATA && lua_touserdata(L, -1) == mark;
    lua_pop(L, 2);
    return mine;
}

/* [..] -> [.., value], returning 1, when the key at 2 is a direct field of the state in `slot`, placed in
 * `generation`; else 0, pushing nothing. Pushes a number or a boolean: allocates nothing. */
static int flux_pushdirect(lua_State *L, const FluxDirectSlot *slot, uint32_t generation) {
    const char *key;
    unsigned int i;
    if (slot->state == NULL || slot->generation != generation || lua_type(L, 2) != LUA_TSTRING) return 0;
    key = lua_tostring(L, 2);
    for (i = 0; i < slot->count; i++) {
        const FluxDirectField *field = &slot->fields[i];
        if (field->key != key) continue;
        switch (field->kind) {
        case FLUX_FIELD_INT: {
            int64_t value;
            memcpy(&value, slot->state + field->offset, sizeof value);
            lua_pushinteger(L, (lua_Integer)value);
            return 1;
        }
        case FLUX_FIELD_DOUBLE: {
            double value;
            memcpy(&value, slot->state + field->offset, sizeof value);
            lua_pushnumber(L, (lua_Number)value);
            return 1;
        }
        case FLUX_FIELD_BOOL:
            lua_pushboolean(L, slot->state[field->offset] != 0);
            return 1;
        default:
            return 0;
        }
    }
    return 0;
}

/* view[key]: upvalue 1 is the reader. The check of flux_isproxy, spelled out so that what it pushed can stay:
 * the reader reads the key at 2 and pushes the value on top, so only a call with other than two arguments (a
 * metamethod called by hand) needs a settop. Anything but a view is an argument error. */
static int flux_proxy_index(lua_State *L) {
    FluxControl *control = flux_getcontrol(L);
    const FluxProxyReader *reader = (const FluxProxyReader *)lua_touserdata(L, lua_upvalueindex(1));
    const FluxProxy *proxy;
    int enforce = control->enforce;
    int results;
    if (lua_type(L, 1) != LUA_TUSERDATA || !lua_getmetatable(L, 1)
        || lua_rawgeti(L, -1, FLUX_PROXY_MARK) != LUA_TLIGHTUSERDATA || lua_touserdata(L, -1) != (const void *)reader) {
        return luaL_typeerror(L, 1, FLUX_PROXY_METATABLE);
    }
    proxy = (const FluxProxy *)lua_touserdata(L, 1);
    if (reader->context == NULL || control->closed) return luaL_error(L, "attempt to read a state while the Lua state closes");
    if ((lua_Integer)proxy->slot < reader->count && flux_pushdirect(L, &reader->slots[proxy->slot], proxy->generation)) return 1;
    if (lua_gettop(L) != 4) lua_settop(L, 2);               /* [view, key] or [view, key, mt, mark] */
    control->enforce = 0;
    results = reader->read(L, reader->context, proxy->slot, proxy->generation);
    control->enforce = enforce;
    if (enforce && control->limit != 0 && control->used > control->limit) {
        lua_newtable(L); /* past the cap once a collection has run: "not enough memory", as the trampoline */
        lua_pop(L, 1);
    }
    if (results >= 0) return results;
    if (results == FLUX_RAISE_WHERE && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

const void *flux_openproxies(lua_State *L, FluxProxyRead read, void *context) {
    FluxProxyReader *reader;
    /* A mark of its own, not a metatable registered by name: the views of another host on the same state
     * (one gone, whose views a script kept) go on reading through their own reader. */
    lua_createtable(L, 0, 8);                               /* [.., mt] */
    lua_pushliteral(L, FLUX_PROXY_METATABLE);
    lua_setfield(L, -2, "__name");
    flux_protectmetatable(L, FLUX_PROXY_METATABLE);
    reader = (FluxProxyReader *)lua_newuserdatauv(L, sizeof(FluxProxyReader), 0); /* [.., mt, reader] */
    reader->context = context;
    reader->read = read;
    reader->slots = NULL;
    reader->count = 0;
    luaL_setmetatable(L, FLUX_BOX_METATABLE);              /* releases the context when collected */
    lua_pushcclosure(L, flux_proxy_index, 1);
    lua_setfield(L, -2, "__index");
    return reader;
}

void flux_setdirectslots(const void *mark, const FluxDirectSlot *slots, lua_Integer count) {
    FluxProxyReader *reader = (FluxProxyReader *)mark;
    reader->slots = slots;
    reader->count = count;
}

void flux_newproxybatch(lua_State *L, int metatable, int live, const void *mark) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, metatable);          /* [.., mt] */
    lua_createtable(L, 2, 8);                               /* [.., mt, batch's]: room for its batch's number */
    lua_pushnil(L);
    while (lua_next(L, -3)) {                               /* [.., mt, batch's, key, value] */
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    lua_pushlightuserdata(L, (void *)mark);
    lua_rawseti(L, -2, FLUX_PROXY_MARK);
    lua_remove(L, -2);                                      /* [.., batch's] */
    lua_rawgeti(L, LUA_REGISTRYINDEX, live);               /* [.., batch's, live] */
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void flux_setproxybatch(lua_State *L, int token, lua_Integer batch) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, token);              /* [.., batch's] */
    lua_pushinteger(L, batch);
    lua_rawseti(L, -2, FLUX_PROXY_BATCH);                   /* its array part has the slot: no allocation */
    lua_pop(L, 1);
}

void flux_pushproxy(lua_State *L, lua_Integer slot, lua_Integer generation, int metatable, int keep) {
    FluxProxy *proxy;
    /* The metatable first: the view's allocation may run finalizers that make views, start another batch
     * and let this one's token go; on the stack, it keeps the batch and its registry slot's value. */
    lua_rawgeti(L, LUA_REGISTRYINDEX, metatable);          /* [.., mt] */
    proxy = (FluxProxy *)lua_newuserdatauv(L, sizeof(FluxProxy), 0); /* [.., mt, view] */
    proxy->slot = (uint32_t)slot;
    proxy->generation = (uint32_t)generation;
    if (keep) {
        lua_pushvalue(L, -2);                               /* [.., mt, view, mt] */
        lua_setmetatable(L, -2);                            /* [.., mt, view] */
        return;
    }
    lua_insert(L, -2);                                      /* [.., view, mt] */
    lua_setmetatable(L, -2);
}

int flux_toproxy(lua_State *L, int idx, const void *mark, lua_Integer *slot, lua_Integer *generation) {
    const FluxProxy *proxy;
    if (!flux_isproxy(L, idx, mark)) return 0;
    proxy = (const FluxProxy *)lua_touserdata(L, idx);
    *slot = proxy->slot;
    *generation = proxy->generation;
    return 1;
}

void flux_markproxies(lua_State *L, int live, unsigned char *marks, lua_Integer count) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, live);               /* [.., live] */
    lua_pushnil(L);
    while (lua_next(L, -2)) {                               /* [.., live, batch's metatable, true] */
        lua_Integer batch = lua_rawgeti(L, -2, FLUX_PROXY_BATCH) == LUA_TNUMBER ? lua_tointeger(L, -1) : -1;
        lua_pop(L, 2);
        if (batch >= 0 && batch < count) marks[batch] = 1;
    }
    lua_pop(L, 1);
}
