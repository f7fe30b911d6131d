/*
 * How a Lua store's handler changes a state that no script can change.
 *
 * Published states are tables no script ever holds: subscribers get read-only views of them (view.c),
 * flux.state a copy. A handler gets a draft of the state: an empty table whose metamethods read through
 * to the published one and copy a level only when the handler writes to it (copy on write), so an action
 * that changes one field copies one table, not the whole state. What the handler returns is frozen:
 * drafts become the tables they copied (untouched parts shared with the old state), tables the handler
 * made are copied (the script keeps its own), and nothing nests deeper than FLUX_COPY_MAX_DEPTH. A draft
 * used after its handler returned is an error; undo and rollback keep references to published states.
 *
 * A published table carries a private metatable recording its height (1 for one holding no table): unlike
 * a weak set of published tables, the mark costs the collector nothing.
 *
 * The handler running now has a session table: session[base] is the draft of a published table, and
 * session[draft] its record {base, copy, parent, key, draft, more, frozen}: the table it stands for, its
 * own copy once written to, where it was read from (more such places in `more`, for a table the state
 * holds twice), and what freezing made of it. The state's own draft has the session itself as its record
 * (its slots are the session's array part): one table fewer a call. A draft of any other session is dead.
 */
#include "internal.h"

#define FLUX_DRAFT_METATABLE "flux.draft"

static const char sessionkey = 0; /* registry: the session now, or false */
static const char markskey = 0;   /* registry: marks[h] = the metatable of published tables of height h */
static const char heightkey = 0;  /* in a mark: its height */
static const char metatablekey = 0; /* registry: the draft metatable, found without hashing its name */

static const char memokey = 0;    /* in a session: what freezing made of the tables the script made */

/* Record slots. R_FROZEN: what freezing made of the draft (its copy, or its base when untouched). */
enum { R_BASE = 1, R_COPY, R_PARENT, R_KEY, R_DRAFT, R_MORE, R_FROZEN };

/* The height of the published table at idx; 0 for anything else. */
static lua_Integer flux_height(lua_State *L, int idx) {
    lua_Integer h = 0;
    if (lua_type(L, idx) == LUA_TTABLE && lua_getmetatable(L, idx)) {
        if (lua_rawgetp(L, -1, &heightkey) == LUA_TNUMBER) h = lua_tointeger(L, -1);
        lua_pop(L, 2);
    }
    return h;
}

static void flux_mark(lua_State *L, int idx, lua_Integer h) {
    idx = lua_absindex(L, idx);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &markskey);       /* [.., marks] */
    if (lua_rawgeti(L, -1, h) != LUA_TTABLE) {          /* [.., marks, mark] */
        lua_pop(L, 1);
        lua_createtable(L, 0, 1);
        lua_pushinteger(L, h);
        lua_rawsetp(L, -2, &heightkey);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, h);
    }
    lua_setmetatable(L, idx);
    lua_pop(L, 1);
}

/* [..] -> [.., session] (a table) or [.., false]. */
static int flux_pushsession(lua_State *L) {
    return lua_rawgetp(L, LUA_REGISTRYINDEX, &sessionkey) == LUA_TTABLE;
}

/* [..] -> [.., record] of the draft at idx; raises when the draft is dead. */
static void flux_pushrecord(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (flux_pushsession(L)) {
        lua_pushvalue(L, idx);
        if (lua_rawget(L, -2) == LUA_TTABLE) {
            lua_remove(L, -2);
            return;
        }
    }
    luaL_where(L, 2);
    lua_pushliteral(L, "a state draft was used after its handler returned");
    lua_concat(L, 2);
    lua_error(L);
}

/* [..] -> [.., table]. The draft's own copy, or its base while it has none. */
static void flux_pushcurrent(lua_State *L, int record) {
    if (lua_rawgeti(L, record, R_COPY) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_rawgeti(L, record, R_BASE);
    }
}

static void flux_touch(lua_State *L, int record);

/* The draft of `record` now stands in its parent's copy at `key`, if the parent still holds its base there. */
static void flux_link(lua_State *L, int record, int parent, int key) {
    luaL_checkstack(L, 6, "state nested too deeply");
    flux_pushsession(L);                                 /* [.., session] */
    lua_pushvalue(L, parent);
    lua_rawget(L, -2);                                   /* [.., session, precord] */
    flux_touch(L, lua_gettop(L));
    lua_rawgeti(L, -1, R_COPY);                          /* [.., session, precord, pcopy] */
    lua_pushvalue(L, key);
    lua_rawget(L, -2);
    lua_rawgeti(L, record, R_BASE);
    if (lua_rawequal(L, -1, -2)) {
        lua_pushvalue(L, key);
        lua_rawgeti(L, record, R_DRAFT);
        lua_rawset(L, -5);                               /* pcopy[key] = draft */
    }
    lua_pop(L, 5);
}

/* Gives a draft its own copy on its first write, and its parents theirs, so the written path is new. */
static void flux_touch(lua_State *L, int record) {
    lua_Integer count = 0, sequence;
    int base, copy;
    record = lua_absindex(L, record);
    if (lua_rawgeti(L, record, R_COPY) != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    luaL_checkstack(L, 8, "state nested too deeply");
    lua_rawgeti(L, record, R_BASE);
    base = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, base)) {                          /* counted first: the copy is sized once */
        lua_pop(L, 1);
        count++;
    }
    sequence = (lua_Integer)lua_rawlen(L, base);
    lua_createtable(L, (int)sequence, (int)(count > sequence ? count - sequence : 0));
    copy = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, base)) {                          /* [.., base, copy, key, value] */
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, copy);
    }
    lua_rawseti(L, record, R_COPY);                      /* [.., base] */
    lua_pop(L, 1);
    if (lua_rawgeti(L, record, R_PARENT) != LUA_TNIL) {  /* [.., parent] */
        lua_rawgeti(L, record, R_KEY);
        flux_link(L, record, lua_gettop(L) - 1, lua_gettop(L));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (lua_rawgeti(L, record, R_MORE) == LUA_TTABLE) {  /* [.., more] */
        lua_Integer i, n = (lua_Integer)lua_rawlen(L, -1);
        for (i = 1; i + 1 <= n; i += 2) {
            lua_rawgeti(L, -1, i);
            lua_rawgeti(L, -2, i + 1);
            flux_link(L, record, lua_gettop(L) - 1, lua_gettop(L));
            lua_pop(L, 2);
        }
    }
    lua_pop(L, 1);
}

/* Notes that the draft (record at `record`) is also read from parent[key]. */
static void flux_addplace(lua_State *L, int record, int parent, int key) {
    lua_Integer i, n;
    int more;
    lua_rawgeti(L, record, R_PARENT);
    lua_rawgeti(L, record, R_KEY);
    if (lua_rawequal(L, -2, parent) && lua_rawequal(L, -1, key)) {
        lua_pop(L, 2);
        return;
    }
    lua_pop(L, 2);
    if (lua_rawgeti(L, record, R_MORE) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawseti(L, record, R_MORE);
    }
    more = lua_gettop(L);
    n = (lua_Integer)lua_rawlen(L, more);
    for (i = 1; i + 1 <= n; i += 2) {
        int same;
        lua_rawgeti(L, more, i);
        lua_rawgeti(L, more, i + 1);
        same = lua_rawequal(L, -2, parent) && lua_rawequal(L, -1, key);
        lua_pop(L, 2);
        if (same) {
            lua_pop(L, 1);
            return;
        }
    }
    lua_pushvalue(L, parent);
    lua_rawseti(L, more, n + 1);
    lua_pushvalue(L, key);
    lua_rawseti(L, more, n + 2);
    lua_pop(L, 1);
    if (lua_rawgeti(L, record, R_COPY) != LUA_TNIL) flux_link(L, record, parent, key);
    lua_pop(L, 1);
}

/* [..] -> [.., draft]. The draft of the published table at `t`, read from parent[key] (parent 0: the
 * state itself); one per table and session. */
static void flux_pushdraft(lua_State *L, int t, int parent, int key) {
    int session, draft;
    t = lua_absindex(L, t);
    luaL_checkstack(L, 8, "state nested too deeply");
    flux_pushsession(L);
    session = lua_gettop(L);                             /* [.., session] */
    lua_pushvalue(L, t);
    if (lua_rawget(L, session) == LUA_TTABLE) {          /* [.., session, draft] */
        if (parent != 0) {
            lua_pushvalue(L, -1);
            lua_rawget(L, session);                      /* [.., session, draft, record] */
            flux_addplace(L, lua_gettop(L), parent, key);
            lua_pop(L, 1);
        }
        lua_remove(L, session);
        return;
    }
    lua_pop(L, 1);
    lua_createtable(L, 0, 0);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &metatablekey);
    lua_setmetatable(L, -2);
    draft = lua_gettop(L);                               /* [.., session, draft] */
    lua_pushvalue(L, t);
    lua_pushvalue(L, draft);
    lua_rawset(L, session);                              /* session[t] = draft */
    lua_pushvalue(L, draft);
    if (parent == 0) lua_pushvalue(L, session);          /* the state's draft: the session is its record */
    else lua_createtable(L, R_FROZEN, 0);                /* [.., session, draft, draft, record] */
    lua_pushvalue(L, t);
    lua_rawseti(L, -2, R_BASE);
    if (parent != 0) {
        lua_pushvalue(L, parent);
        lua_rawseti(L, -2, R_PARENT);
        lua_pushvalue(L, key);
        lua_rawseti(L, -2, R_KEY);
    }
    lua_pushvalue(L, draft);
    lua_rawseti(L, -2, R_DRAFT);
    lua_rawset(L, session);                              /* session[draft] = record */
    lua_remove(L, session);                              /* [.., draft] */
}

/* [..] -> [.., value]. draft[key] for the draft at `draft`, the key on top: a table comes as its draft. */
static void flux_draftget(lua_State *L, int draft, int key) {
    int value;
    flux_pushrecord(L, draft);                           /* [.., record] */
    flux_pushcurrent(L, lua_gettop(L));                  /* [.., record, t] */
    lua_pushvalue(L, key);
    lua_rawget(L, -2);                                   /* [.., record, t, value] */
    value = lua_gettop(L);
    if (flux_height(L, value) > 0) {
        flux_pushdraft(L, value, draft, key);
        lua_replace(L, value);
    }
    lua_replace(L, value - 2);
    lua_pop(L, 1);
}

static int flux_draft_index(lua_State *L) {
    lua_settop(L, 2);
    flux_draftget(L, 1, 2);
    return 1;
}

static int flux_draft_newindex(lua_State *L) {
    lua_settop(L, 3);
    flux_pushrecord(L, 1);                               /* [d, k, v, record] */
    flux_touch(L, 4);
    lua_rawgeti(L, 4, R_COPY);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_rawset(L, -3);
    return 0;
}

static int flux_draft_len(lua_State *L) {
    lua_settop(L, 1);
    flux_pushrecord(L, 1);
    flux_pushcurrent(L, 2);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

/* The iterator __pairs returns: keys in the order of the table the draft read when pairs began, values
 * as they are now (a key whose value is gone now is skipped). */
static int flux_draft_next(lua_State *L) {
    lua_settop(L, 2);
    while (lua_next(L, lua_upvalueindex(1))) {           /* [d, key, value] */
        lua_pop(L, 1);
        flux_draftget(L, 1, 2);                          /* [d, key, now] */
        if (!lua_isnil(L, -1)) return 2;
        lua_pop(L, 1);
    }
    return 0;
}

static int flux_draft_pairs(lua_State *L) {
    lua_settop(L, 1);
    flux_pushrecord(L, 1);
    flux_pushcurrent(L, 2);                              /* [d, record, t] */
    lua_pushcclosure(L, flux_draft_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* One freeze's state: the stack index of the session, whose records and memo remember what was frozen
 * (done or under way). */
typedef struct { int session; } FluxFreeze;

/* [..] -> [.., frozen]. The published form of the value at `v`; returns its height (0 for a value that
 * is no table, or a table under way: a cycle). */
static lua_Integer flux_freezevalue(lua_State *L, int v, FluxFreeze *f, int depth) {
    lua_Integer h;
    int t;
    v = lua_absindex(L, v);
    luaL_checkstack(L, 8, "state nested too deeply");
    if (lua_type(L, v) != LUA_TTABLE || (h = flux_height(L, v)) > 0) {
        lua_pushvalue(L, v);
        return lua_type(L, v) == LUA_TTABLE ? h : 0;
    }
    if (depth > FLUX_COPY_MAX_DEPTH) luaL_error(L, "table nested deeper than %d levels", FLUX_COPY_MAX_DEPTH);
    lua_pushvalue(L, v);
    if (lua_rawget(L, f->session) == LUA_TTABLE) {       /* a draft of this handler: [.., record] */
        int record = lua_gettop(L);
        if (lua_rawgeti(L, record, R_FROZEN) != LUA_TNIL) { /* frozen already, or under way */
            lua_remove(L, record);
            return flux_height(L, -1);
        }
        lua_pop(L, 1);
        lua_pushnil(L);
        if (lua_next(L, v)) luaL_error(L, "a state draft was changed with rawset");
        if (lua_rawgeti(L, record, R_COPY) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_rawgeti(L, record, R_BASE);              /* untouched: the published table itself */
            lua_pushvalue(L, -1);
            lua_rawseti(L, record, R_FROZEN);
            lua_remove(L, record);
            return flux_height(L, -1);
        }
        lua_pushvalue(L, -1);                            /* [.., record, copy]: the draft's own, no script holds it */
        lua_rawseti(L, record, R_FROZEN);
        lua_remove(L, record);
    } else {
        lua_pop(L, 1);
        if (lua_rawgetp(L, f->session, &memokey) == LUA_TTABLE) { /* [.., memo] */
            lua_pushvalue(L, v);
            if (lua_rawget(L, -2) != LUA_TNIL) {
                lua_remove(L, -2);
                return flux_height(L, -1);
            }
            lua_pop(L, 1);
        } else {
            lua_pop(L, 1);
            lua_newtable(L);                             /* made on the first table the script made */
            lua_pushvalue(L, -1);
            lua_rawsetp(L, f->session, &memokey);
        }
        if (lua_getmetatable(L, v)) {
            int draft = lua_rawgetp(L, LUA_REGISTRYINDEX, &metatablekey) != LUA_TNIL && lua_rawequal(L, -1, -2);
            lua_pop(L, 2);
            if (draft) luaL_error(L, "a state draft from an earlier action cannot be part of a new state");
        }
        lua_newtable(L);                                 /* a table the script made stays the script's */
        lua_pushnil(L);
        while (lua_next(L, v)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -4);
        }                                                /* [.., memo, t] */
        lua_pushvalue(L, v);
        lua_pushvalue(L, -2);
        lua_rawset(L, -4);                               /* memo[v] = t */
        lua_remove(L, -2);
    }
    t = lua_gettop(L);
    h = 1;
    lua_pushnil(L);
    while (lua_next(L, t)) {                             /* [.., t, key, x] */
        if (lua_type(L, -1) == LUA_TTABLE) {
            int x = lua_gettop(L);
            lua_Integer hx = flux_freezevalue(L, x, f, depth + 1); /* [.., t, key, x, fx] */
            if (!lua_rawequal(L, -1, x)) {
                lua_pushvalue(L, x - 1);
                lua_pushvalue(L, -2);
                lua_rawset(L, t);
            }
            if (hx >= h) h = hx + 1;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (h > FLUX_COPY_MAX_DEPTH) luaL_error(L, "table nested deeper than %d levels", FLUX_COPY_MAX_DEPTH);
    flux_mark(L, t, h);
    return h;
}

/* [.., v] -> [.., frozen], with the session at `session`. */
static void flux_freezetop(lua_State *L, int session) {
    FluxFreeze f;
    f.session = lua_absindex(L, session);
    flux_freezevalue(L, -1, &f, 1);                      /* [.., v, frozen] */
    lua_remove(L, -2);
}

/* Whether every key of the table at absolute index b is a key of the table at absolute index a. */
int flux_keysin(lua_State *L, int b, int a) {
    lua_pushnil(L);
    while (lua_next(L, b)) {                             /* [.., key, vb] */
        lua_pushvalue(L, -2);
        if (lua_rawget(L, a) == LUA_TNIL) {
            lua_pop(L, 3);
            return 0;
        }
        lua_pop(L, 2);
    }
    return 1;
}

/* Whether the frozen tables (or values) at a and b hold the same: tables compared key by key, what they
 * share compared once (a frozen state shares what an action did not change, so this is quick). */
int flux_sameshape(lua_State *L, int a, int b, int depth) {
    a = lua_absindex(L, a);
    b = lua_absindex(L, b);
    if (lua_rawequal(L, a, b)) return 1;
    if (lua_type(L, a) != LUA_TTABLE || lua_type(L, b) != LUA_TTABLE) return 0;
    if (depth > FLUX_COPY_MAX_DEPTH) return 0;
    luaL_checkstack(L, 6, "state nested too deeply");
    lua_pushnil(L);
    while (lua_next(L, a)) {                             /* [.., key, va] */
        lua_pushvalue(L, -2);
        lua_rawget(L, b);                                /* [.., key, va, vb] */
        if (lua_isnil(L, -1) || !flux_sameshape(L, -2, -1, depth + 1)) {
            lua_pop(L, 3);
            return 0;
        }
        lua_pop(L, 2);
    }
    return flux_keysin(L, b, a);                         /* no key only b has */
}

/* invoke(handler, state, action): the handler called with a draft of the state; what it returns (a
 * table), or the draft as it changed it when it returns nothing, frozen. A new state holding the same as
 * the old one is the old one: nobody hears of it and no undo step is made. The second result is the old
 * state's undo cost beside the new one (flux_tablecost), counted in the same walk of its top table as the
 * comparison (flux_samestate); 0 when the state is the old one. A failed handler leaves its session current until
 * the next call: its drafts can still be written (to copies of their own) but never frozen into a
 * state. */
static int flux_invoke(lua_State *L) {
    long long bytes = 0;
    lua_settop(L, 3);
    lua_createtable(L, R_FROZEN, 2);                     /* the state's draft's record, the draft and it */
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sessionkey);      /* [handler, state, action, session] */
    flux_pushdraft(L, 2, 0, 0);                          /* [handler, state, action, session, draft] */
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 5);
    lua_pushvalue(L, 3);
    lua_call(L, 2, 1);                                   /* [handler, state, action, session, draft, new] */
    if (lua_isnil(L, 6)) lua_pop(L, 1);                  /* nothing returned: the draft as changed */
    if (lua_type(L, -1) == LUA_TTABLE) {
        flux_freezetop(L, 4);
        if (lua_rawequal(L, 2, -1) || flux_samestate(L, 2, -1, &bytes)) {
            lua_pushvalue(L, 2);                         /* untouched, or made equal: the old state */
            bytes = 0;
        }
    }
    lua_pushboolean(L, 0);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sessionkey);
    lua_pushinteger(L, (lua_Integer)bytes);
    return 2;
}

/* freeze(table): a state from a script (flux.store's initial state), the script keeping its own table. */
static int flux_freeze(lua_State *L) {
    lua_settop(L, 1);
    lua_pushboolean(L, 0);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sessionkey);     /* no draft is live */
    lua_newtable(L);                                     /* a session of its own, for the memo alone */
    lua_insert(L, 1);
    flux_freezetop(L, 1);
    return 1;
}

void flux_pushinvoke(lua_State *L) { lua_pushcfunction(L, flux_invoke); }
void flux_pushfreeze(lua_State *L) { lua_pushcfunction(L, flux_freeze); }

void flux_opendrafts(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"__index", flux_draft_index},
        {"__newindex", flux_draft_newindex},
        {"__len", flux_draft_len},
        {"__pairs", flux_draft_pairs},
        {NULL, NULL},
    };
    luaL_newmetatable(L, FLUX_DRAFT_METATABLE);
    luaL_setfuncs(L, methods, 0);
    flux_protectmetatable(L, FLUX_DRAFT_METATABLE);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &metatablekey);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &markskey);
    lua_pushboolean(L, 0);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sessionkey);
}
