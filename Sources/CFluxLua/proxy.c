/*
 * Views of Swift stores' states.
 *
 * A view is a userdata holding the slot of its state in the host's table of published states
 * (StateProxies.swift) and that slot's generation; it has no finalizer, so making and collecting one is
 * cheap. Slots come in batches, and every view of a batch holds (as its user value) the batch's token, a
 * key of a weak-keyed table while it lives: the host frees a batch once its token is no key any more
 * (flux_markproxies), that is once none of its views can be reached. Lua clears weak keys after it has
 * brought back what finalizers will see, so a view only a finalizer can reach keeps its batch, and reads
 * its state, to the end.
 *
 * `view.field` is a C function that checks the view's metatable against the one it knows and calls
 * the host's reader directly, as the trampoline calls a Swift function: without the cap, the error raised
 * once Swift has returned.
 */
#include "internal.h"

typedef struct FluxProxy {
    lua_Integer slot;
    lua_Integer generation;
} FluxProxy;

/* The reader's userdata: `context` first, so that the box metatable's __gc releases it (flux_box_gc). */
typedef struct FluxProxyReader {
    void *context;
    FluxProxyRead read;
    const void *metatable; /* the views' metatable, which the registry keeps (Lua never moves an object) */
} FluxProxyReader;

/* The view at idx; an argument error for anything else (a metamethod called by hand). */
static const FluxProxy *flux_checkproxy(lua_State *L, int idx, const FluxProxyReader *reader) {
    int mine = 0;
    if (lua_type(L, idx) == LUA_TUSERDATA && lua_getmetatable(L, idx)) {
        mine = lua_topointer(L, -1) == reader->metatable;
        lua_pop(L, 1);
    }
    if (!mine) luaL_typeerror(L, idx, FLUX_PROXY_METATABLE);
    return (const FluxProxy *)lua_touserdata(L, idx);
}

/* view[key]: upvalue 1 is the reader. */
static int flux_proxy_index(lua_State *L) {
    FluxControl *control = flux_getcontrol(L);
    const FluxProxyReader *reader = (const FluxProxyReader *)lua_touserdata(L, lua_upvalueindex(1));
    const FluxProxy *proxy = flux_checkproxy(L, 1, reader);
    int enforce = control->enforce;
    int results;
    if (reader->context == NULL || control->closed) return luaL_error(L, "attempt to read a state while the Lua state closes");
    lua_settop(L, 2);
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

void flux_openproxies(lua_State *L, FluxProxyRead read, void *context) {
    FluxProxyReader *reader;
    /* A metatable of its own, not one registered by name: the views of another host on the same state (one
     * gone, whose views a script kept) go on reading through their own table. */
    lua_createtable(L, 0, 8);                               /* [.., mt] */
    lua_pushliteral(L, FLUX_PROXY_METATABLE);
    lua_setfield(L, -2, "__name");
    flux_protectmetatable(L, FLUX_PROXY_METATABLE);
    reader = (FluxProxyReader *)lua_newuserdatauv(L, sizeof(FluxProxyReader), 0); /* [.., mt, reader] */
    reader->context = context;
    reader->read = read;
    reader->metatable = lua_topointer(L, -2);
    luaL_setmetatable(L, FLUX_BOX_METATABLE);              /* releases the context when collected */
    lua_pushcclosure(L, flux_proxy_index, 1);
    lua_setfield(L, -2, "__index");
}

void flux_newproxybatch(lua_State *L, int live, lua_Integer batch) {
    *(lua_Integer *)lua_newuserdatauv(L, sizeof(lua_Integer), 0) = batch; /* [.., token] */
    lua_rawgeti(L, LUA_REGISTRYINDEX, live);               /* [.., token, live] */
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void flux_pushproxy(lua_State *L, lua_Integer slot, lua_Integer generation, int metatable, int token) {
    FluxProxy *proxy = (FluxProxy *)lua_newuserdatauv(L, sizeof(FluxProxy), 1); /* [.., view] */
    proxy->slot = slot;
    proxy->generation = generation;
    lua_rawgeti(L, LUA_REGISTRYINDEX, metatable);
    lua_setmetatable(L, -2);
    lua_rawgeti(L, LUA_REGISTRYINDEX, token);
    lua_setiuservalue(L, -2, 1);
}

int flux_toproxy(lua_State *L, int idx, int metatable, lua_Integer *slot, lua_Integer *generation) {
    const FluxProxy *proxy;
    int mine;
    if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, metatable);
    mine = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (!mine) return 0;
    proxy = (const FluxProxy *)lua_touserdata(L, idx);
    *slot = proxy->slot;
    *generation = proxy->generation;
    return 1;
}

void flux_markproxies(lua_State *L, int live, unsigned char *marks, lua_Integer count) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, live);               /* [.., live] */
    lua_pushnil(L);
    while (lua_next(L, -2)) {                               /* [.., live, token, true] */
        const lua_Integer *batch = (const lua_Integer *)lua_touserdata(L, -2);
        lua_pop(L, 1);
        if (batch != NULL && *batch >= 0 && *batch < count) marks[*batch] = 1;
    }
    lua_pop(L, 1);
}
