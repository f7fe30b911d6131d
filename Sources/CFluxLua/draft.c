/*
 * How a Lua store's handler changes a state that no script can change.
 *
 * Published states are tables no script ever holds: subscribers get read-only views of them (tableview.c),
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
 * The handler running now has a session: the drafts' bookkeeping, kept in one userdata (FluxDrafts) made
 * once per state and reused by every call. A draft's record is {base, copy, parent, key, draft, more,
 * frozen}: the table it stands for, its own copy once written to, where it was read from (more such places
 * in `more`, for a table the state holds twice), and what freezing made of it. The state's own draft is
 * known by its address, and its base, copy and draft are the userdata's own user values: a handler that
 * changes fields of its state makes two tables (its draft and the copy) and writes no record. The state's
 * record, kept from call to call, is given them only when a nested draft or freezing first needs it; the
 * userdata notes how many pairs the state has (counted when the copy is made) and which slots of that
 * record the next call must clear. Drafts of nested tables are found in a table made on the first of them
 * (nested[base] = draft, nested[draft] = record). When the handler returns, the session ends: the address
 * is forgotten and the nested table dropped, so every draft of it is dead.
 *
 * Freezing walks only what it must. Writes to the state's own draft that put no table in and take none out
 * are counted as they happen (does the field now differ from the old state's?): such a copy holds the old
 * state's tables, so it takes the old state's mark, its undo cost is a header and a slot a pair, and a
 * count of 0 is no change. Otherwise the result is frozen, and a copy of a small state compared with the
 * old one and costed, in one walk.
 */
#include "internal.h"

#define FLUX_DRAFT_METATABLE "flux.draft"

static const char invokekey = 0;  /* registry: invoke, with the FluxDrafts userdata as its upvalue */
static const char freezekey = 0;  /* registry: freeze, likewise */
static const char heightkey = 0;  /* in a mark: its height */

/* The sessions of one state. Its user values: U_TOP, the state's draft's record (reused); U_NESTED, the
 * nested drafts of the session now (or nil); U_MARKS, marks[h] = the metatable of published tables of
 * height h; U_METATABLE, the drafts' metatable; U_BASE, U_COPY and U_DRAFT, the state, its draft's copy
 * (this session's once `count` is set) and its draft. A handler's reads and writes of its state's fields
 * use these and the counts below; the record is given them only when a nested draft or freezing needs it
 * (flux_pushtop). */
typedef struct FluxDrafts {
    const void *top;        /* the state's draft while its session is live; NULL when none is */
    unsigned generation;    /* one more for each session */
    int tables;             /* a table was written or linked into a copy, or a nested draft written */
    long long differing;    /* otherwise: how many fields of the state's copy differ from the old state's */
    lua_Integer count;      /* the pairs of the state, counted when its draft's copy was made; -1 before */
    int nested;             /* U_NESTED holds a table */
    int marked;             /* a record's R_FROZEN or R_MORE may be set: the state's record needs clearing */
    int synced;             /* the state's record holds this session's base, draft and copy (flux_pushtop) */
    int freezing;           /* the handler returned and its result is being frozen: a finalizer the freeze's
                             * allocations run finds every draft dead, so none changes what is frozen */
    long long cost;         /* the undo cost the last invoke measured: flux_callinvoke hands it to its caller */
} FluxDrafts;
enum { U_TOP = 1, U_NESTED, U_MARKS, U_METATABLE, U_COPY, U_BASE, U_DRAFT };

/* The draft functions' first upvalue is the FluxDrafts userdata. */
#define DRAFTS lua_upvalueindex(1)

/* The state's FluxDrafts, through its control block: cheaper than lua_touserdata of an upvalue, on every
 * read and write of a draft. */
static FluxDrafts *flux_drafts(lua_State *L) { return flux_control(L)->drafts; }

/* Sets the top to n unless it is there already (it is, unless a metamethod is called by hand). */
static void flux_settopto(lua_State *L, int n) {
    if (lua_gettop(L) != n) lua_settop(L, n);
}

/* Record slots. R_FROZEN: what freezing made of the draft (its copy, or its base when untouched). The
 * state's own draft has no R_PARENT nor R_KEY, which tells its record from the others. */
enum { R_BASE = 1, R_COPY, R_PARENT, R_KEY, R_DRAFT, R_MORE, R_FROZEN };

/* The most pairs a first write copies in one pass, held on the stack; a larger table is read twice. */
#define FLUX_TOUCH_STACKED 16

/* The height of the published table at idx; 0 for anything else. */
static lua_Integer flux_height(lua_State *L, int idx) {
    lua_Integer h = 0;
    if (lua_type(L, idx) == LUA_TTABLE && lua_getmetatable(L, idx)) {
        if (lua_rawgetp(L, -1, &heightkey) == LUA_TNUMBER) h = lua_tointeger(L, -1);
        lua_pop(L, 2);
    }
    return h;
}

/* [..] -> [.., record]: the state's draft's record, given this session's base, draft and copy on first use.
 * The FluxDrafts userdata is at `drafts`. */
static void flux_pushtop(lua_State *L, int drafts) {
    FluxDrafts *d = flux_drafts(L);
    lua_getiuservalue(L, drafts, U_TOP);
    if (d->synced) return;
    lua_getiuservalue(L, drafts, U_BASE);
    lua_rawseti(L, -2, R_BASE);
    lua_getiuservalue(L, drafts, U_DRAFT);
    lua_rawseti(L, -2, R_DRAFT);
    if (d->count >= 0) lua_getiuservalue(L, drafts, U_COPY);
    else lua_pushnil(L);
    lua_rawseti(L, -2, R_COPY);                         /* existing slots: allocates nothing */
    d->synced = 1;
}

/* [..] -> [.., record] of the live draft at idx, returning 1; [..] and 0 for anything else. The FluxDrafts
 * userdata is at `drafts`. */
static int flux_findrecord(lua_State *L, int drafts, int idx) {
    FluxDrafts *d = flux_drafts(L);
    if (lua_type(L, idx) != LUA_TTABLE) return 0;
    if (d->top != NULL && lua_topointer(L, idx) == d->top) {
        flux_pushtop(L, drafts);
        return 1;
    }
    if (!d->nested) return 0;
    idx = lua_absindex(L, idx);
    if (lua_getiuservalue(L, drafts, U_NESTED) == LUA_TTABLE) {
        lua_pushvalue(L, idx);
        if (lua_rawget(L, -2) == LUA_TTABLE) {           /* [.., nested, record], or a draft for a base */
            lua_rawgeti(L, -1, R_DRAFT);
            if (lua_rawequal(L, -1, idx)) {
                lua_pop(L, 1);
                lua_remove(L, -2);
                return 1;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return 0;
}

/* [..] -> [.., record] of the draft at idx; raises when the draft is dead. */
static void flux_pushrecord(lua_State *L, int idx) {
    if (!flux_drafts(L)->freezing && flux_findrecord(L, DRAFTS, idx)) return;
    luaL_where(L, 2);
    lua_pushliteral(L, "a state draft was used after its handler returned");
    lua_concat(L, 2);
    lua_error(L);
}

/* [..] -> [.., nested], made on the first nested draft of a session. */
static void flux_pushnested(lua_State *L, int drafts) {
    if (lua_getiuservalue(L, drafts, U_NESTED) == LUA_TTABLE) return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, drafts, U_NESTED);
    flux_drafts(L)->nested = 1;
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
    if (!flux_findrecord(L, DRAFTS, parent)) return;     /* [.., precord] */
    flux_touch(L, lua_gettop(L));
    lua_rawgeti(L, -1, R_COPY);                          /* [.., precord, pcopy] */
    lua_pushvalue(L, key);
    lua_rawget(L, -2);
    lua_rawgeti(L, record, R_BASE);
    if (lua_rawequal(L, -1, -2)) {
        lua_pushvalue(L, key);
        lua_rawgeti(L, record, R_DRAFT);
        lua_rawset(L, -5);                               /* pcopy[key] = draft */
        flux_drafts(L)->tables = 1;
    }
    lua_pop(L, 4);
}

/* [.., base] -> [.., base, copy]: a copy of the table on top, sized once; returns its pairs. */
static lua_Integer flux_copytable(lua_State *L) {
    lua_Integer count = 0, sequence, i;
    int base = lua_gettop(L), copy = base + 1, numbered = 0;
    luaL_checkstack(L, 2 * FLUX_TOUCH_STACKED + 8, "state nested too deeply");
    lua_pushnil(L);                                      /* the copy's place: made below its pairs, not moved there */
    lua_pushnil(L);
    while (count <= FLUX_TOUCH_STACKED && lua_next(L, base)) { /* a small table read once, onto the stack */
        numbered |= lua_type(L, -2) == LUA_TNUMBER;
        lua_pushvalue(L, -2);                            /* [.., base, nil, k1, v1, .., key, value, key] */
        count++;
    }
    /* no sequence without a number key */
    sequence = numbered || count > FLUX_TOUCH_STACKED ? (lua_Integer)lua_rawlen(L, base) : 0;
    if (count <= FLUX_TOUCH_STACKED) {                   /* [.., base, nil, k1, v1, .., kn, vn] */
        lua_createtable(L, (int)sequence, (int)(count > sequence ? count - sequence : 0));
        lua_replace(L, copy);
        for (i = 0; i < count; i++) lua_rawset(L, copy);
        return count;
    }
    lua_settop(L, copy);                                 /* a large one counted first: the copy is sized once */
    count = 0;
    lua_pushnil(L);
    while (lua_next(L, base)) {
        lua_pop(L, 1);
        count++;
    }
    lua_createtable(L, (int)sequence, (int)(count > sequence ? count - sequence : 0));
    lua_replace(L, copy);
    lua_pushnil(L);
    while (lua_next(L, base)) {                          /* [.., base, copy, key, value] */
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, copy);
    }
    return count;
}

/* Gives a draft its own copy on its first write, and its parents theirs, so the written path is new. */
static void flux_touch(lua_State *L, int record) {
    lua_Integer count;
    record = lua_absindex(L, record);
    if (lua_rawgeti(L, record, R_COPY) != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lua_rawgeti(L, record, R_BASE);
    count = flux_copytable(L);                           /* [.., base, copy] */
    if (lua_rawgeti(L, record, R_COPY) != LUA_TNIL) {    /* a finalizer the copy's allocation ran wrote first */
        lua_pop(L, 3);                                   /* its copy stands */
        return;
    }
    lua_pop(L, 1);
    if (lua_rawgeti(L, record, R_PARENT) == LUA_TNIL) {  /* the state's own draft: [.., base, copy, nil] */
        FluxDrafts *d = flux_drafts(L);
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, DRAFTS, U_COPY);
        lua_rawseti(L, record, R_COPY);
        lua_pop(L, 1);
        d->count = count;
        if (!d->marked) return;                          /* its R_MORE is unset */
    } else {                                             /* [.., base, copy, parent] */
        lua_insert(L, -3);
        lua_rawseti(L, record, R_COPY);
        lua_pop(L, 1);                                   /* [.., parent] */
        lua_rawgeti(L, record, R_KEY);
        flux_link(L, record, lua_gettop(L) - 1, lua_gettop(L));
        lua_pop(L, 2);
    }
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
        flux_drafts(L)->marked = 1;
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

/* [..] -> [.., draft]. The draft of the published table at `t`, read from parent[key]; one per table and
 * session. */
static void flux_pushdraft(lua_State *L, int t, int parent, int key) {
    int nested, draft;
    t = lua_absindex(L, t);
    luaL_checkstack(L, 8, "state nested too deeply");
    flux_pushtop(L, DRAFTS);
    lua_rawgeti(L, -1, R_BASE);
    if (lua_rawequal(L, -1, t)) {                        /* the state itself, held inside itself */
        lua_pop(L, 1);                                   /* [.., record] */
        flux_addplace(L, lua_gettop(L), parent, key);
        lua_rawgeti(L, -1, R_DRAFT);
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 2);
    flux_pushnested(L, DRAFTS);
    nested = lua_gettop(L);                              /* [.., nested] */
    lua_pushvalue(L, t);
    if (lua_rawget(L, nested) == LUA_TTABLE) {           /* [.., nested, draft] */
        lua_pushvalue(L, -1);
        lua_rawget(L, nested);                           /* [.., nested, draft, record] */
        flux_addplace(L, lua_gettop(L), parent, key);
        lua_pop(L, 1);
        lua_remove(L, nested);
        return;
    }
    lua_pop(L, 1);
    lua_createtable(L, 0, 0);
    lua_getiuservalue(L, DRAFTS, U_METATABLE);
    lua_setmetatable(L, -2);
    draft = lua_gettop(L);                               /* [.., nested, draft] */
    lua_pushvalue(L, t);
    lua_pushvalue(L, draft);
    lua_rawset(L, nested);                               /* nested[t] = draft */
    lua_pushvalue(L, draft);
    lua_createtable(L, R_FROZEN, 0);                     /* [.., nested, draft, draft, record] */
    lua_pushvalue(L, t);
    lua_rawseti(L, -2, R_BASE);
    lua_pushvalue(L, parent);
    lua_rawseti(L, -2, R_PARENT);
    lua_pushvalue(L, key);
    lua_rawseti(L, -2, R_KEY);
    lua_pushvalue(L, draft);
    lua_rawseti(L, -2, R_DRAFT);
    lua_rawset(L, nested);                               /* nested[draft] = record */
    lua_remove(L, nested);                               /* [.., draft] */
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

/* Whether the value at idx is the draft of the state itself in the live session. */
static int flux_istop(lua_State *L, FluxDrafts *d, int idx) {
    return d->top != NULL && !d->freezing && lua_topointer(L, idx) == d->top;
}

static int flux_draft_index(lua_State *L) {
    FluxDrafts *d = flux_drafts(L);
    flux_settopto(L, 2);
    if (flux_istop(L, d, 1)) {                           /* the state's own: what it reads is at hand */
        lua_getiuservalue(L, DRAFTS, d->count >= 0 ? U_COPY : U_BASE);
        lua_pushvalue(L, 2);
        if (lua_rawget(L, 3) == LUA_TTABLE && flux_height(L, 4) > 0) flux_pushdraft(L, 4, 1, 2);
        return 1;
    }
    flux_draftget(L, 1, 2);
    return 1;
}

/* Raises unless the key at idx may be a state's. A table may not: keys are found by identity, so freezing
 * cannot copy one, and it would stay the script's, to change after its action was done (and a subscriber's,
 * handed out by pairs of a view). */
static void flux_checkkey(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TTABLE) luaL_error(L, "a table cannot be a key of a state: the script would keep it to change");
}

/* A write to the state's own draft that puts no table in nor takes one out is counted in the FluxDrafts:
 * whether the field now differs from the old state's, so that freezing such a draft needs no walk. Its
 * first write copies the state (a state held inside itself has more places to link it into: flux_touch). */
static int flux_draft_newindex(lua_State *L) {
    FluxDrafts *d = flux_drafts(L);
    int before, after, fresh = 0;
    flux_settopto(L, 3);
    if (!flux_istop(L, d, 1)) {
        flux_pushrecord(L, 1);                           /* [d, k, v, record] */
        flux_checkkey(L, 2);
        flux_touch(L, 4);
        lua_rawgeti(L, 4, R_COPY);
        lua_insert(L, 2);                                /* [d, copy, k, v, record] */
        lua_pop(L, 1);
        lua_rawset(L, 2);
        d->tables = 1;
        return 0;
    }
    flux_checkkey(L, 2);
    lua_pushnil(L);                                      /* [d, k, v, nil]: keeps the indices below */
    if (d->count >= 0) {
        lua_getiuservalue(L, DRAFTS, U_BASE);
        lua_getiuservalue(L, DRAFTS, U_COPY);           /* [d, k, v, nil, base, copy] */
    } else if (!d->marked) {                             /* its first write, no other place to link the copy into */
        lua_Integer count;
        unsigned generation = d->generation;
        lua_getiuservalue(L, DRAFTS, U_BASE);
        count = flux_copytable(L);                       /* [d, k, v, nil, base, copy]; may raise: nothing set */
        if (d->count >= 0 || d->marked || d->generation != generation || d->top == NULL || d->freezing) {
            /* a finalizer the copy's allocation ran wrote first, or gave the draft another place */
            lua_settop(L, 3);
            return flux_draft_newindex(L);               /* its copy stands (or the session ended) */
        }
        lua_pushvalue(L, 6);
        lua_setiuservalue(L, DRAFTS, U_COPY);
        if (d->synced) {
            lua_pushvalue(L, 6);
            lua_getiuservalue(L, DRAFTS, U_TOP);
            lua_insert(L, -2);
            lua_rawseti(L, -2, R_COPY);
            lua_pop(L, 1);
        }
        d->count = count;
        fresh = 1;
    } else {
        flux_pushtop(L, DRAFTS);
        lua_replace(L, 4);                               /* [d, k, v, record] */
        flux_touch(L, 4);
        lua_rawgeti(L, 4, R_BASE);
        lua_rawgeti(L, 4, R_COPY);
    }
    lua_pushvalue(L, 2);
    if (lua_type(L, 3) == LUA_TTABLE || lua_rawget(L, 6) == LUA_TTABLE) { /* [d, k, v, -, base, copy, was] */
        lua_pushvalue(L, 2);
        lua_pushvalue(L, 3);
        lua_rawset(L, 6);
        d->tables = 1;
        return 0;
    }
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_rawset(L, 6);                                    /* may raise (a nil or NaN key): nothing counted yet */
    if (fresh) {                                         /* the copy held the old state's value */
        d->differing += !lua_rawequal(L, 3, 7);
        return 0;
    }
    lua_pushvalue(L, 2);
    lua_rawget(L, 5);                                    /* [d, k, v, -, base, copy, was, old] */
    before = !lua_rawequal(L, 7, 8);
    after = !lua_rawequal(L, 3, 8);
    d->differing += after - before;
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
    while (lua_next(L, lua_upvalueindex(2))) {           /* [d, key, value] */
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
    lua_pushvalue(L, DRAFTS);
    lua_insert(L, -2);
    lua_pushcclosure(L, flux_draft_next, 2);             /* upvalues: the drafts, t */
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* One freeze's state, as stack indices: the FluxDrafts userdata, whether its live drafts are frozen into
 * the state (not when a script's table is), a slot for the memo of what freezing made of the tables the
 * script made (nil until the first), and the marks; records and memo remember what was frozen, done or
 * under way. With `compare`, the top table's pairs are compared with the old state's at `old` as they are
 * frozen: one walk for freezing, comparing and the undo cost. */
typedef struct {
    int drafts, live, memo, marks, old;
    FluxCompare *compare;
} FluxFreeze;

/* Marks the table at idx as published, of height h. */
static void flux_mark(lua_State *L, int idx, lua_Integer h, FluxFreeze *f) {
    idx = lua_absindex(L, idx);
    if (lua_rawgeti(L, f->marks, h) != LUA_TTABLE) {    /* [.., mark] */
        lua_pop(L, 1);
        lua_createtable(L, 0, 1);
        lua_pushinteger(L, h);
        lua_rawsetp(L, -2, &heightkey);
        lua_pushvalue(L, -1);
        lua_rawseti(L, f->marks, h);
    }
    lua_setmetatable(L, idx);
}

/* [..] -> [.., frozen]. The published form of the value at `v`; returns its height (0 for a value that
 * is no table, or a table under way: a cycle). */
static lua_Integer flux_freezevalue(lua_State *L, int v, FluxFreeze *f, int depth) {
    lua_Integer h;
    int t;
    v = lua_absindex(L, v);
    luaL_checkstack(L, 8, "state nested too deeply");
    if (lua_type(L, v) != LUA_TTABLE) {
        lua_pushvalue(L, v);
        return 0;
    }
    if (f->live && flux_findrecord(L, f->drafts, v)) {   /* a draft of this handler: [.., record] */
        int record = lua_gettop(L);
        if (depth > FLUX_COPY_MAX_DEPTH) luaL_error(L, "table nested deeper than %d levels", FLUX_COPY_MAX_DEPTH);
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
    } else if ((h = flux_height(L, v)) > 0) {            /* published already */
        lua_pushvalue(L, v);
        return h;
    } else {
        if (depth > FLUX_COPY_MAX_DEPTH) luaL_error(L, "table nested deeper than %d levels", FLUX_COPY_MAX_DEPTH);
        if (lua_type(L, f->memo) == LUA_TTABLE) {
            lua_pushvalue(L, f->memo);                   /* [.., memo] */
            lua_pushvalue(L, v);
            if (lua_rawget(L, -2) != LUA_TNIL) {
                lua_remove(L, -2);
                return flux_height(L, -1);
            }
            lua_pop(L, 1);
        } else {
            lua_newtable(L);                             /* made on the first table the script made */
            lua_pushvalue(L, -1);
            lua_replace(L, f->memo);
        }
        if (lua_getmetatable(L, v)) {
            int draft = lua_getiuservalue(L, f->drafts, U_METATABLE) != LUA_TNIL && lua_rawequal(L, -1, -2);
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
        flux_checkkey(L, -2);
        if (lua_type(L, -1) == LUA_TTABLE) {
            int x = lua_gettop(L);
            lua_Integer hx = flux_freezevalue(L, x, f, depth + 1); /* [.., t, key, x, fx] */
            if (!lua_rawequal(L, -1, x)) {
                lua_pushvalue(L, x - 1);
                lua_pushvalue(L, -2);
                lua_rawset(L, t);
            }
            lua_replace(L, x);                           /* [.., t, key, fx] */
            if (hx >= h) h = hx + 1;
        }
        if (depth == 1 && f->compare != NULL) flux_comparepair(L, f->old, f->compare);
        lua_pop(L, 1);
    }
    if (h > FLUX_COPY_MAX_DEPTH) luaL_error(L, "table nested deeper than %d levels", FLUX_COPY_MAX_DEPTH);
    flux_mark(L, t, h, f);
    return h;
}

/* [.., v] -> [.., frozen]. The drafts userdata is at `drafts`; `live`: its live drafts are frozen into the
 * state; `compare`: v's pairs are compared with the old state's at `old` (see FluxFreeze). */
static void flux_freezetop(lua_State *L, int drafts, int live, int old, FluxCompare *compare) {
    FluxFreeze f;
    f.drafts = drafts;
    f.live = live;
    f.old = old;
    f.compare = compare;
    lua_getiuservalue(L, drafts, U_MARKS);
    lua_pushnil(L);
    lua_rotate(L, -3, 2);                                /* [.., marks, memo, v] */
    f.memo = lua_gettop(L) - 1;
    f.marks = f.memo - 1;
    flux_freezevalue(L, -1, &f, 1);                      /* [.., marks, memo, v, frozen] */
    lua_replace(L, f.marks);
    lua_pop(L, 2);
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
 * share compared once (a frozen state shares what an action did not change, so this is quick). A table
 * held in many places, or a state held inside itself twice, is compared once for each way of reaching it:
 * twice as often for each level, so the pairs compared are counted down from *left, and past them the
 * values are not the same (a change, which is never wrong, only an undo step more) rather than a walk in C
 * that no interrupt reaches. */
int flux_sameshape(lua_State *L, int a, int b, int depth, long long *left) {
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
        if (--*left < 0 || lua_isnil(L, -1) || !flux_sameshape(L, -2, -1, depth + 1, left)) {
            lua_pop(L, 3);
            return 0;
        }
        lua_pop(L, 2);
    }
    return flux_keysin(L, b, a);                         /* no key only b has */
}

/* invoke(state, handler, nil, action): the handler called with a draft of the state; what it returns (a
 * table), or the draft as it changed it when it returns nothing, frozen. A new state holding the same as
 * the old one is no change, and so is the old state itself: then the result is nil (nobody hears of it and
 * no undo step is made). The old state's undo cost beside the new one, as flux_tablecost counts it, is left
 * in the FluxDrafts for flux_callinvoke: from the counted writes, in the walk that freezes, or in one walk
 * of the old state's top table with the comparison (flux_samestate); 0 when nothing changed. `action` is
 * nil for a handler that cannot see it; the nil before it is the draft's place, so the call takes its
 * arguments where they are. A failed handler leaves its session live until the next call: its drafts can
 * still be written (to copies of their own) but never frozen into a state. A session that another began
 * while the handler ran (a handler reached from a handler) is not frozen: its drafts died with it. */
static int flux_invoke(lua_State *L) {
    long long bytes = 0;
    unsigned generation;
    int type;
    FluxDrafts *d = flux_drafts(L);
    FluxCompare compare;
    flux_settopto(L, 4);                                 /* [state, handler, nil, action] */
    d->tables = 0;
    d->differing = 0;
    d->freezing = 0;                                     /* a freeze that raised left it set */
    if (d->nested) {                                     /* the last session's nested drafts die */
        lua_pushnil(L);
        lua_setiuservalue(L, DRAFTS, U_NESTED);
        d->nested = 0;
    }
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, DRAFTS, U_BASE);
    d->count = -1;                                       /* U_COPY holds the last session's copy until set */
    d->synced = 0;                                       /* the record is given this session's on first use */
    if (d->marked) {
        lua_getiuservalue(L, DRAFTS, U_TOP);
        lua_pushnil(L);
        lua_rawseti(L, -2, R_MORE);
        lua_pushnil(L);
        lua_rawseti(L, -2, R_FROZEN);
        lua_pop(L, 1);
        d->marked = 0;
    }
    lua_createtable(L, 0, 0);                            /* the state's draft */
    lua_pushvalue(L, lua_upvalueindex(2));               /* the drafts' metatable */
    lua_setmetatable(L, -2);
    d->top = lua_topointer(L, 5);
    lua_copy(L, 5, 3);                                   /* into its place */
    lua_setiuservalue(L, DRAFTS, U_DRAFT);              /* [state, handler, draft, action] */
    generation = ++d->generation;
    lua_call(L, 2, 1);                                   /* [state, new] */
    d->freezing = 1;
    if (d->generation != generation) luaL_error(L, "a state draft's handler was interrupted by another handler");
    type = lua_type(L, 2);
    if (type == LUA_TNIL) {                              /* nothing returned: the draft as changed (this session's) */
        lua_pop(L, 1);
        type = lua_getiuservalue(L, DRAFTS, U_DRAFT);
    }
    if (type == LUA_TTABLE) {
        /* the state's pairs when its draft was returned and given a copy (the session is this one: d->top is
         * its draft), else -1 */
        lua_Integer count = lua_topointer(L, 2) == d->top ? d->count : -1;
        int flat = 0;
        lua_pushnil(L);
        if (count >= 0 && !d->tables && !lua_next(L, 2)) {
            /* the draft's copy, changed in fields that hold no table: the old state's tables and height,
             * the fields counted as they were written */
            if (d->differing == 0) {
                lua_pushnil(L);                          /* no change */
                flat = 1;
            } else {
                lua_getiuservalue(L, DRAFTS, U_COPY);
                if (lua_getmetatable(L, 1)) {
                    lua_setmetatable(L, -2);             /* the old state's mark */
                    bytes = flux_flatcost(count);
                    flat = 1;
                }
            }
        }
        if (!flat) {
            lua_settop(L, 2);
            d->marked = 1;                               /* records get R_FROZEN */
            flux_comparebegin(&compare);
            flux_freezetop(L, DRAFTS, 1, 1, count >= 0 && count <= FLUX_TOUCH_STACKED ? &compare : NULL);
            /* the draft's copy, made from the old state, compared as it was frozen: the same when it has
             * the old state's pairs, all of them alike */
            if (lua_rawequal(L, 1, -1)) bytes = -1;
            else if (count >= 0 && count <= FLUX_TOUCH_STACKED && compare.matched == count) bytes = compare.same ? -1 : compare.bytes;
            else if (flux_samestate(L, 1, -1, &bytes)) bytes = -1;
            if (bytes < 0) {                             /* the old state, or one holding the same: no change */
                lua_pushnil(L);
                bytes = 0;
            }
        }
    }
    d->top = NULL;                                       /* the session's drafts die */
    d->freezing = 0;
    if (d->nested) {
        lua_pushnil(L);
        lua_setiuservalue(L, DRAFTS, U_NESTED);
        d->nested = 0;
    }
    d->cost = bytes;
    return 1;
}

/* freeze(table): a state from a script (flux.store's initial state), the script keeping its own table. No
 * draft is part of it: a draft there is an error. */
static int flux_freeze(lua_State *L) {
    lua_settop(L, 1);
    flux_freezetop(L, DRAFTS, 0, 0, NULL);
    return 1;
}

int flux_takesaction(lua_State *L) {
    lua_Debug ar;
    if (lua_type(L, -1) != LUA_TFUNCTION) {              /* callable some other way: it may see anything */
        lua_pop(L, 1);
        return 1;
    }
    lua_getinfo(L, ">u", &ar);
    return ar.nparams >= 2 || ar.isvararg;
}

int flux_callinvoke(lua_State *L, int invoke, int handler, int state, int action, int *stop, long long *cost) {
    int status;
    int base = lua_gettop(L) - (action ? 1 : 0);         /* [.., action?] */
    flux_pushmsghandler(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, invoke);
    lua_rawgeti(L, LUA_REGISTRYINDEX, state);
    lua_rawgeti(L, LUA_REGISTRYINDEX, handler);
    lua_pushnil(L);                                      /* the draft's place */
    if (action) lua_rotate(L, base + 1, -1);             /* [.., msgh, invoke, state, handler, nil, action] */
    else lua_pushnil(L);
    status = flux_pcallwith(L, 4, 1, base + 1, stop);
    if (status == LUA_OK) *cost = flux_drafts(L)->cost;  /* the invoke that returned last is this one */
    return status;
}

/* Made once with the drafts as their first upvalue (flux_opendrafts, in a protected call): pushing them later
 * allocates nothing. */
void flux_pushinvoke(lua_State *L) { lua_rawgetp(L, LUA_REGISTRYINDEX, &invokekey); }
void flux_pushfreeze(lua_State *L) { lua_rawgetp(L, LUA_REGISTRYINDEX, &freezekey); }
int flux_ispublished(lua_State *L, int idx) { return flux_height(L, idx) > 0; }

void flux_opendrafts(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"__index", flux_draft_index},
        {"__newindex", flux_draft_newindex},
        {"__len", flux_draft_len},
        {"__pairs", flux_draft_pairs},
        {NULL, NULL},
    };
    FluxDrafts *d = (FluxDrafts *)lua_newuserdatauv(L, sizeof(FluxDrafts), U_DRAFT);
    flux_control(L)->drafts = d;                     /* the registry keeps it while the state lives */
    d->top = NULL;
    d->generation = 0;
    d->tables = 0;
    d->differing = 0;
    d->count = -1;
    d->nested = 0;
    d->marked = 0;
    d->synced = 0;
    d->freezing = 0;
    d->cost = 0;
    lua_createtable(L, R_FROZEN, 0);
    lua_setiuservalue(L, -2, U_TOP);
    lua_newtable(L);
    lua_setiuservalue(L, -2, U_MARKS);
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, flux_freeze, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &freezekey);      /* [drafts] */
    luaL_newmetatable(L, FLUX_DRAFT_METATABLE);
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, methods, 1);                       /* each method's upvalue: the drafts */
    flux_protectmetatable(L, FLUX_DRAFT_METATABLE);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, -3, U_METATABLE);              /* [drafts, metatable] */
    lua_pushcclosure(L, flux_invoke, 2);                /* its upvalues: the drafts and their metatable */
    lua_rawsetp(L, LUA_REGISTRYINDEX, &invokekey);
}
