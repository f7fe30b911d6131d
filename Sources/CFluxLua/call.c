/* Protected calls into Lua, and calls from Lua into Swift: the message handler, the trampoline, and the
 * userdata that hold Swift objects. */
#include "internal.h"

/* [err] -> [message]. Renders the error object as lua.c does and keeps the traceback apart, in the
 * registry, so Swift gets message and traceback separately. */
static int flux_msghandler(lua_State *L) {
    if (lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER) {
        lua_tostring(L, 1);
        lua_settop(L, 1);
    } else {
        int rendered = 0;
        if (luaL_getmetafield(L, 1, "__tostring") != LUA_TNIL) { /* [err, __tostring] */
            lua_pushvalue(L, 1);                                /* [err, __tostring, err] */
            rendered = lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING;
            if (!rendered) lua_pop(L, 1);                       /* a failing __tostring is no message */
        }
        if (!rendered) lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }                                                           /* [.., message] */
    flux_traceback(L, L, NULL, 1);                              /* [.., message, traceback] */
    lua_setfield(L, LUA_REGISTRYINDEX, FLUX_TRACEBACK_KEY);     /* [.., message] */
    return 1;
}

void flux_pushmsghandler(lua_State *L) {
    lua_pushcfunction(L, flux_msghandler);
}

int flux_pcallwith(lua_State *L, int nargs, int nresults, int handler, int *stop) {
    FluxControl *control = flux_getcontrol(L);
    int enforce = control->enforce;
    lua_State *outer;
    int status;
    flux_callbegin(L, control, &outer);
    control->enforce = 1;
    control->depth++;
    control->calls++;
    status = lua_pcall(L, nargs, nresults, handler);
    control->depth--;
    control->enforce = enforce;
    *stop = control->stop;
    flux_callend(L, outer, control);
    return status;
}

int flux_pcall(lua_State *L, int nargs, int nresults, int *stop) {
    int base = lua_gettop(L) - nargs; /* the function's slot; the handler goes there */
    int status;
    flux_pushmsghandler(L);
    lua_insert(L, base);
    status = flux_pcallwith(L, nargs, nresults, base, stop);
    lua_remove(L, base);
    return status;
}

void flux_pushtraceback(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, FLUX_TRACEBACK_KEY);
    lua_pushboolean(L, 0); /* false, not nil: the key stays, so the handler's next store never allocates */
    lua_setfield(L, LUA_REGISTRYINDEX, FLUX_TRACEBACK_KEY);
}

int flux_load(lua_State *L, const char *source, size_t length, const char *name, const char *mode) {
    FluxControl *control = flux_getcontrol(L);
    int enforce = control->enforce;
    int status;
    control->enforce = 1;
    status = luaL_loadbufferx(L, source, length, name, mode);
    control->enforce = enforce;
    return status;
}

/* The box of a keyed Swift function: the Swift box first (flux_box_gc releases it), then, when its keys
 * are fixed (a key once in the table stays, with its value), the key it was last called with (its
 * characters: upvalue 3 holds the string, so no other string gets its address) and that key's value; and
 * the C function the keyed body is, if it is one, with what it is called with (the box keeps it). */
typedef struct FluxKeyedBox {
    void *box;
    int fixed;
    const char *last;
    lua_Integer value;
    FluxKeyedEntry entry;
    void *context;
} FluxKeyedBox;

/* Calls Swift: the function `box` stands for (what upvalue 1 holds), or the keyed body of `keyed` with
 * `key`. Swift runs without the memory cap (an allocation failure would raise across its frames) and
 * reports errors by returning a FLUX_RAISE value; the error is raised here, after Swift has returned. What
 * Swift pushed counts against the cap all the same: past it once a collection has run, the call fails. */
static int flux_callswift(lua_State *L, void *box, const FluxKeyedBox *keyed, lua_Integer key) {
    FluxControl *control = flux_getcontrol(L);
    int enforce = control->enforce;
    int results;
    if (box == NULL) return luaL_error(L, "attempt to call a Swift function that was released");
    if (control->closed) return luaL_error(L, "attempt to call a Swift function while the Lua state closes");
    control->enforce = 0;
    results = keyed == NULL ? control->call(L, box)
            : keyed->entry != NULL ? keyed->entry(L, keyed->context, key) : control->callkeyed(L, box, key);
    control->enforce = enforce;
    if (enforce && control->limit != 0 && control->used > control->limit) {
        /* An allocation under the cap: after an emergency collection, "not enough memory" if still past. */
        lua_newtable(L);
        lua_pop(L, 1);
    }
    if (results >= 0) return results;
    if (results == FLUX_RAISE_WHERE && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);  /* [.., message, where] */
        lua_insert(L, -2); /* [.., where, message] */
        lua_concat(L, 2);  /* [.., where..message] */
    }
    return lua_error(L);
}

/* The C function behind every Swift function. Upvalue 1 is a userdata holding the Swift box. */
static int flux_trampoline(lua_State *L) {
    return flux_callswift(L, *(void **)lua_touserdata(L, lua_upvalueindex(1)), NULL, 0);
}

/* The C function behind a keyed Swift function: upvalue 2 is the table of keys. One string argument
 * found there with an integer value goes to the keyed body, whatever else to the function itself (a table
 * argument is not looked up: it is never a key, and the lookup would slow that call down). With fixed keys,
 * the string of the last call (the same object: Lua keeps one copy of a short string) is not looked up
 * again: it still has the value it had. */
static int flux_keyedtrampoline(lua_State *L) {
    FluxKeyedBox *keyed = (FluxKeyedBox *)lua_touserdata(L, lua_upvalueindex(1));
    if (lua_gettop(L) == 1 && lua_type(L, 1) == LUA_TSTRING) {
        const char *name = lua_tolstring(L, 1, NULL);                /* a string: no conversion */
        int isinteger;
        lua_Integer key;
        if (name == keyed->last && keyed->fixed) {
            lua_pushinteger(L, keyed->value);                         /* [arg, key]: as a lookup leaves it */
            return flux_callswift(L, keyed->box, keyed, keyed->value);
        }
        lua_pushvalue(L, 1);                                          /* [arg, arg] */
        if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TNUMBER) {      /* [arg, keys[arg]] */
            key = lua_tointegerx(L, -1, &isinteger);
            if (isinteger) {
                if (keyed->fixed) {
                    lua_copy(L, 1, lua_upvalueindex(3));
                    keyed->last = name;
                    keyed->value = key;
                }
                return flux_callswift(L, keyed->box, keyed, key);     /* the value stays: no results */
            }
        }
        lua_pop(L, 1);                                                /* [arg] */
    }
    return flux_callswift(L, keyed->box, NULL, 0);
}

/* __gc of every userdata that holds a Swift object: drops the retain the userdata held. Upvalue 1 is the
 * metatable it was set in: called by hand on anything else (another userdata, a light userdata), it does
 * nothing. The slot is cleared first, so a finalized userdata reached again holds nothing. */
static int flux_box_gc(lua_State *L) {
    void **slot;
    int mine;
    if (lua_type(L, 1) != LUA_TUSERDATA || !lua_getmetatable(L, 1)) return 0;
    mine = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (!mine) return 0;
    slot = (void **)lua_touserdata(L, 1);
    if (slot != NULL && *slot != NULL) {
        void *box = *slot;
        *slot = NULL;
        flux_getcontrol(L)->release(box);
    }
    return 0;
}

void flux_newbox(lua_State *L, void *box) {
    void **slot = (void **)lua_newuserdatauv(L, sizeof(void *), 0);
    *slot = box;
}

void *flux_box(lua_State *L, int idx) {
    void **slot = (void **)lua_touserdata(L, idx);
    return slot != NULL ? *slot : NULL;
}

void flux_setboxgc(lua_State *L) {
    lua_pushvalue(L, -1);                   /* [.., mt, mt] */
    lua_pushcclosure(L, flux_box_gc, 1);    /* [.., mt, gc] */
    lua_setfield(L, -2, "__gc");
}

void flux_protectmetatable(lua_State *L, const char *name) {
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__metatable");
}

void flux_pushswiftfunction(lua_State *L, void *box) {
    flux_newbox(L, box);                     /* [.., box] */
    luaL_setmetatable(L, FLUX_BOX_METATABLE);
    lua_pushcclosure(L, flux_trampoline, 1); /* [.., function] */
}

void flux_pushkeyedfunction(lua_State *L, void *box, int fixed, FluxKeyedEntry entry, void *context) {
    FluxKeyedBox *keyed = (FluxKeyedBox *)lua_newuserdatauv(L, sizeof(FluxKeyedBox), 0); /* [.., keys, box] */
    keyed->box = box;
    keyed->fixed = fixed;
    keyed->last = NULL;
    keyed->value = 0;
    keyed->entry = entry;
    keyed->context = context;
    luaL_setmetatable(L, FLUX_BOX_METATABLE);
    lua_insert(L, -2);                            /* [.., box, keys] */
    lua_pushnil(L);                               /* [.., box, keys, last key]: none yet */
    lua_pushcclosure(L, flux_keyedtrampoline, 3); /* [.., function] */
}
