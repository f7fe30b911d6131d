/*
 * The C side of FluxLua: everything Swift cannot or must not do itself.
 *
 * - The C API's function-like macros (lua_pop, lua_newtable, …), which Swift cannot import.
 * - Everything that may raise a Lua error (longjmp): the trampoline that calls Swift functions and raises
 *   their errors once Swift has returned, the count hook that stops runaway scripts, the message handler.
 *   A longjmp must never cross a Swift frame, so Swift only calls API functions that cannot raise, and
 *   calls Lua code only through flux_pcall.
 * - The allocator that caps a state's memory.
 * - Read-only views of state tables, copy-on-write drafts of them for handlers, and the deep copy.
 *
 * This header only declares; the definitions are in the .c files beside it, compiled once.
 */
#ifndef FLUX_CFLUXLUA_H
#define FLUX_CFLUXLUA_H

#include <stddef.h>
#include <lua5.4/lua.h>
#include <lua5.4/lauxlib.h>
#include <lua5.4/lualib.h>

/* ---------------------------------------------------------------------------------------------------------
 * Macros Swift cannot import
 * ------------------------------------------------------------------------------------------------------- */

int flux_registryindex(void);
void flux_pop(lua_State *L, int n);
void flux_insert(lua_State *L, int idx);
void flux_remove(lua_State *L, int idx);
void flux_pushglobaltable(lua_State *L);
int flux_getmetatable(lua_State *L, const char *tname);

/* ---------------------------------------------------------------------------------------------------------
 * Per-state control block
 * ------------------------------------------------------------------------------------------------------- */

/* Calls the Swift function `box` stands for. Returns its result count, or one of the FLUX_RAISE values
 * once it has pushed an error value. */
typedef int (*FluxSwiftCall)(lua_State *L, void *box);
/* Calls the keyed body of the Swift function `box` stands for with the integer its argument was a key
 * of (flux_pushkeyedfunction). Returns as a FluxSwiftCall does. */
typedef int (*FluxSwiftKeyedCall)(lua_State *L, void *box, lua_Integer key);
/* A keyed body that is a C function of its own (flux_pushkeyedfunction): called with its `context` and the
 * integer, without going through the box. Returns as a FluxSwiftCall does. */
typedef int (*FluxKeyedEntry)(lua_State *L, void *context, lua_Integer key);
/* Releases a Swift object a userdata held (a function box or an object pushed to Lua). */
typedef void (*FluxSwiftRelease)(void *box);

struct FluxControl;
/* Shows a message nobody can catch: a finalizer's error. Must not call into Lua. */
typedef void (*FluxSwiftWarn)(struct FluxControl *control, const char *message);

/* What a Swift function returns after pushing an error value. */
#define FLUX_RAISE (-1)       /* raise the value on top as it is */
#define FLUX_RAISE_WHERE (-2) /* a message string is on top: prefix the caller's position, as luaL_error does */

/* Why the count hook stopped a call. */
#define FLUX_STOP_NONE 0
#define FLUX_STOP_INTERRUPTED 1
#define FLUX_STOP_BUDGET 2

/* While a budget is set, the hook runs every FLUX_HOOK_INTERVAL instructions (or every `budget` ones when
 * that is smaller). Without a budget there is no hook at all: any hook makes Lua check every instruction. */
#define FLUX_HOOK_INTERVAL 1000

/* The most instructions one finalizer of a script may run (fewer when the state's budget is smaller):
 * Lua runs finalizers with hooks off, so the host runs them itself, bounded (finalizer.c). */
#define FLUX_FINALIZER_BUDGET 10000000

/* How deeply nested a table flux_deepcopy copies and a state may be: deeper is an error. */
#define FLUX_COPY_MAX_DEPTH 1000

typedef struct FluxControl {
    lua_State *state;             /* the main thread; NULL once the state is closing */
    void *owner;                  /* the Swift object that owns this block (unretained) */
    FluxSwiftCall call;
    FluxSwiftKeyedCall callkeyed;
    FluxSwiftRelease release;
    FluxSwiftWarn warn;           /* NULL: standard error */

    size_t used;                  /* bytes allocated by the state */
    size_t limit;                 /* 0: no limit */
    int enforce;                  /* the limit applies only while Lua code runs, never while Swift does */

    long long budget;             /* instructions per outermost call; 0: no budget */
    long long remaining;
    int hook_count;               /* the hook's normal pace */
    int depth;                    /* nesting of flux_pcall */
    int stop;                     /* FLUX_STOP_…: sticky until the outermost call returns */

    int interrupt_requests;       /* bumped atomically by flux_interrupt, from any thread or a signal handler */
    int interrupts_seen;          /* interrupt_requests when the outermost call began */
    int global_interrupts_seen;   /* the process-wide counter when the outermost call began */

    lua_State *running;           /* the thread running Lua code now, where an interrupt sets the hook; NULL
                                   * between calls. Read by other threads and signal handlers (atomically) */
    int slot;                     /* this block's place in the table of running states, -1 when it has none */
    int polling;                  /* no place was free: the hook polls all along instead */
    int script_hooks;             /* a script has set a hook with debug.sethook: the hook looks it up */
    int closed;                   /* set when the owner goes: Swift functions called after it raise an error */
    long long calls;              /* protected calls begun (flux_pcallwith), nested ones included */
    int viewmetatable;            /* the registry slot (luaL_ref) of the state views' metatable (tableview.c) */
    const void *viewmetatable_at; /* that metatable's address, which it keeps while the state lives */
    struct FluxPool *pool;        /* small blocks the state freed, kept for its next allocations (state.c) */
    struct FluxDrafts *drafts;    /* a Lua store's handler's drafts, found without a userdata look-up (draft.c) */
    int closing;                  /* coroutine closes nested now (hook.c); last, so that the fields every call
                                   * reads keep their places */
    int torture;                  /* set before flux_newstate: the state collects at every allocation (torture.c) */
    int torturing;                /* the collector runs at the torture's pace now (torture.c) */
    long long torture_work;       /* about the bytes the torture's collections marked in this outermost call */
    const void *hookerror;        /* the error a script's hook raised last, raised from inside the hook (xpcall.c) */
} FluxControl;

/* The block of the state L belongs to; every thread of a state carries it in its extra space. */
FluxControl *flux_getcontrol(lua_State *L);

/* A new state with the standard libraries, allocating through `control`; no hook until a call needs one.
 * NULL when memory runs out. */
lua_State *flux_newstate(FluxControl *control);

/* Whether the environment asks for the garbage-collection torture mode: FLUX_GC_TORTURE set, and not to 0. */
int flux_torturerequested(void);

/* Makes the state run a full collection cycle, finalizers included, at every GC check point after an
 * allocation: as close to a full collection at every allocation as the API allows (torture.c). */
void flux_settorture(lua_State *L);

/* The most bytes the torture's collections may mark in one outermost call (about: the bytes the state held
 * at each allocation, summed) before the collector goes back to its normal pace until the call returns: a
 * runaway script allocating millions of times would otherwise take hours. */
#define FLUX_TORTURE_WORK (4LL << 30)

/* Closes the state: from now on a Swift function called (by a finalizer) raises an error instead. */
void flux_closestate(FluxControl *control);

/* ---------------------------------------------------------------------------------------------------------
 * Protected calls
 * ------------------------------------------------------------------------------------------------------- */

/* [..] -> [.., handler]. The message handler, for flux_pcallwith; a light C function: no allocation. */
void flux_pushmsghandler(lua_State *L);

/* [.., handler, .., f, args…] -> [.., handler, .., results…] or [.., handler, .., message].
 * lua_pcall with the message handler at `handler`, the memory cap enforced, and the budget and
 * interrupts checked. `stop` receives why the hook stopped the call. */
int flux_pcallwith(lua_State *L, int nargs, int nresults, int handler, int *stop);

/* [.., f, args…] -> [.., results…] or [.., message]. flux_pcallwith, the handler slipped in below the
 * function and taken out afterwards. Needs one free slot. */
int flux_pcall(lua_State *L, int nargs, int nresults, int *stop);

/* [..] -> [.., traceback or false]. The traceback the handler saved for the last runtime error. */
void flux_pushtraceback(lua_State *L);

/* [..] -> [.., chunk] or [.., message]. Compiles under the memory cap; the parser is protected. */
int flux_load(lua_State *L, const char *source, size_t length, const char *name, const char *mode);

/* ---------------------------------------------------------------------------------------------------------
 * Instruction budget and interrupts
 * ------------------------------------------------------------------------------------------------------- */

/* Asks the call running in one state to stop with "interrupted"; async-signal-safe, from any thread. */
void flux_interrupt(FluxControl *control);

/* Asks the calls running in every state to stop with "interrupted": for a SIGINT handler. */
void flux_interrupt_all(void);

/* Sets the instruction budget; during a call it counts from now, and the hook starts or stops. */
void flux_setbudget(FluxControl *control, long long budget);

/* ---------------------------------------------------------------------------------------------------------
 * Swift functions and objects
 * ------------------------------------------------------------------------------------------------------- */

/* [..] -> [.., userdata]. A userdata holding `box`, which the userdata now owns; no metatable yet. */
void flux_newbox(lua_State *L, void *box);

/* The Swift object the userdata at `idx` holds, or NULL once finalized. */
void *flux_box(lua_State *L, int idx);

/* [.., metatable] -> [.., metatable]. Makes the userdata that get this metatable (and only those) release
 * their box when collected. */
void flux_setboxgc(lua_State *L);

/* [.., metatable] -> [.., metatable]. Hides the metatable from getmetatable and setmetatable: they see
 * `name` instead. */
void flux_protectmetatable(lua_State *L, const char *name);

/* [..] -> [.., function]. A Lua function calling the Swift function `box` stands for. */
void flux_pushswiftfunction(lua_State *L, void *box);

/* [.., keys] -> [.., function]. flux_pushswiftfunction's function, with a shortcut: called with one
 * string argument that is a key of the table `keys` (raw) with an integer value, it calls the keyed body
 * of `box` with that integer instead (no table lookup in Swift). Any other call goes to the Swift function.
 * `fixed`: keys are only ever added to `keys`, and keep their value, so the key of the last call is answered
 * without a lookup. `entry` (or NULL): the keyed body as a C function, called with `context`, which `box`
 * must keep alive. */
void flux_pushkeyedfunction(lua_State *L, void *box, int fixed, FluxKeyedEntry entry, void *context);

/* ---------------------------------------------------------------------------------------------------------
 * State tables: deep copies and read-only views
 * ------------------------------------------------------------------------------------------------------- */

/* [..] -> [.., deepcopy]. deepcopy(value): a copy of `value` whose tables are all new (metatables are not
 * copied); shared tables and cycles kept; deeper than FLUX_COPY_MAX_DEPTH an error. */
void flux_pushdeepcopy(lua_State *L);

/* [.., table] -> [.., view]. The read-only view of a table no script can reach: a userdata, one per table
 * (made once, kept while either lives), whose reads cannot be redirected or changed by any script. */
void flux_pushview(lua_State *L);

/* [..] -> [.., view]. A new read-only view of the table in registry slot `table`, one no script can reach,
 * not cached: for a holder that keeps the one view of its table itself (a Lua store, of its published
 * state) in registry slot `slot`, which the view then fills (none when `slot` is 0). Never raises but for
 * memory. */
void flux_newview(lua_State *L, int table, int slot);

/* [.., view] -> [.., next, view, nil]: what `pairs(view)` returns, without looking up the global `pairs`
 * (a script can replace it). Allocates nothing. */
void flux_pushviewpairs(lua_State *L);

/* The length (raw) of the table behind the view at `idx`, or of the value itself when it is not a view. Never
 * raises. */
lua_Integer flux_viewlength(lua_State *L, int idx);

/* About how many bytes the table at `t` holds that the value at `shared` (another state, or nil) does
 * not: each table its header and a slot per pair; a nested table that is the very table `shared` holds
 * under the same key is neither counted nor walked. Stops counting after `budget` pairs (a table that
 * holds itself is counted, not walked forever), and deeper than 256 levels. Never raises. */
long long flux_tablecost(lua_State *L, int t, int shared, long long budget);
/* The budget of pairs a state's undo cost is counted with. */
#define FLUX_COST_BUDGET 4194304LL /* 1 << 22 */

/* [..] -> [.., invoke]. invoke(state, handler, nil, action) calls a Lua store's handler with a copy-on-write
 * draft of the published state `state` and returns what it returns, a table frozen into a published
 * state (see draft.c), or nil when that holds the same as `state`; the undo cost of `state` beside it
 * (flux_tablecost with FLUX_COST_BUDGET) is what flux_callinvoke hands back. */
void flux_pushinvoke(lua_State *L);

/* [.., action?] -> [.., msgh, new state or nil] or [.., msgh, message]: invoke(state, handler, nil, action)
 * under flux_pcallwith, with the message handler (msgh, left for the caller to pop with the rest) and the
 * `invoke`, `handler` and `state` registry refs pushed here, so a Lua store's handler is called with one
 * crossing from Swift; `cost` receives the undo cost invoke measured. With `action` nonzero the action is on
 * top and taken; else the handler gets nil. Needs 6 free slots (5 with the action on top). */
int flux_callinvoke(lua_State *L, int invoke, int handler, int state, int action, int *stop, long long *cost);

/* [.., handler] -> [..]. Whether a handler can see the action invoke passes it: it declares a second
 * parameter or takes varargs (a C function always can). One that cannot is given nil: no table is made. */
int flux_takesaction(lua_State *L);

/* [..] -> [.., freeze]. freeze(table): the published state made from a script's table, which stays the
 * script's. */
void flux_pushfreeze(lua_State *L);

/* Whether the value at `idx` is a published table: one freezing made, which never changes again (what a
 * session's encoder may keep the text of). */
int flux_ispublished(lua_State *L, int idx);

/* ---------------------------------------------------------------------------------------------------------
 * Views of Swift stores' states, and telling subscribers
 * ------------------------------------------------------------------------------------------------------- */

/* Pushes field `key` (at index 2) of the state in `slot` of the host's table of published states, for a view
 * made in `generation`, and returns 1; or pushes an error message and returns a FLUX_RAISE value. */
typedef int (*FluxProxyRead)(lua_State *L, void *context, lua_Integer slot, lua_Integer generation);

/* What a field is, for a view that reads it in C: a stored Int, Double or Bool. */
#define FLUX_FIELD_INT 1
#define FLUX_FIELD_DOUBLE 2
#define FLUX_FIELD_BOOL 3

/* A field of a state type a view reads without calling Swift: `key` is its name's characters as a Lua
 * string the host keeps (Lua keeps one copy of a short string, so a script's key is known by its address),
 * stored `offset` bytes into the state, of `kind` (FLUX_FIELD_…). */
typedef struct FluxDirectField {
    const char *key;
    size_t offset;
    int kind;
} FluxDirectField;

/* What C knows of one slot of the host's table of published states: where its state is (it never moves
 * while the slot holds it), the direct fields of its type, and the generation it was placed in. A slot
 * whose `state` is NULL is read through Swift. */
typedef struct FluxDirectSlot {
    const unsigned char *state;
    const FluxDirectField *fields;
    unsigned int count;
    unsigned int generation;
} FluxDirectSlot;

/* [..] -> [.., metatable]. A new metatable for Swift state views (hidden from scripts), whose __index calls
 * `read` with `context`, a retained Swift object the state releases (FluxControl.release) when it closes;
 * the host gives it its other metamethods. Returns the mark of the host's views. Views are made by
 * flux_pushproxy, with a copy of this metatable per batch (flux_newproxybatch). */
const void *flux_openproxies(lua_State *L, FluxProxyRead read, void *context);

/* Gives the views of the host whose mark is `mark` (flux_openproxies) its slots as C sees them, `count` of
 * them (NULL, 0: none). The host keeps the memory, and calls this again whenever it moves it. */
void flux_setdirectslots(const void *mark, const FluxDirectSlot *slots, lua_Integer count);

/* [..] -> [.., metatable]. The metatable of a new batch of slots, which every view of the batch has: a copy
 * of registry[metatable] holding `mark`, a key of the weak-keyed table registry[live] while it lives. It
 * names no batch until flux_setproxybatch. */
void flux_newproxybatch(lua_State *L, int metatable, int live, const void *mark);

/* Names `batch` in the batch metatable registry[token] (made by flux_newproxybatch). Allocates nothing, so
 * runs no finalizer. */
void flux_setproxybatch(lua_State *L, int token, lua_Integer batch);

/* [..] -> [.., view], or [.., metatable, view] when `keep` (for a caller that drops both with one settop:
 * no rotation). A new view of the state in `slot`, made in the slot's `generation`: a userdata without
 * finalizer or user value whose metatable is registry[metatable], its batch's. */
void flux_pushproxy(lua_State *L, lua_Integer slot, lua_Integer generation, int metatable, int keep);

/* Whether the value at `idx` is a view whose metatable holds `mark`; if so, its slot and generation. Never
 * raises. */
int flux_toproxy(lua_State *L, int idx, const void *mark, lua_Integer *slot, lua_Integer *generation);

/* Sets marks[batch] to 1 for every batch (0 to count - 1) whose metatable is still a key of the table
 * registry[live]: some view of it may be reached. Never raises. */
void flux_markproxies(lua_State *L, int live, unsigned char *marks, lua_Integer count);

/* [.., handler, subscribers, .., view] -> the same, or with the failed call's message on top.
 * `subscribers` holds a pair per subscriber: [2i - 1] its function (false once cancelled), [2i] the view it
 * was given last (false before the first). Calls function(view, previous) for the pairs `from` to `*to`
 * (1-based; a negative `*to` becomes the number of pairs the table holds when it is called) through flux_pcallwith with the message handler at `handler`, skipping cancelled ones; the view
 * becomes each one's previous as it is called (a call that cancels its subscriber clears it). Stops after the first call that
 * fails and returns its pair number (its status and the hook's stop in *status and *stop); 0 when none
 * failed. Never raises: every value it stores goes to an existing key. */
int flux_notify(lua_State *L, int handler, int from, int *to, int *status, int *stop);

/* [..] -> [.., handler, subscribers]: what flux_notify needs below the view, `subscribers` being the
 * registry slot of the table of pairs; with room for FLUX_NOTIFY_SPACE values from the handler on. Returns 0,
 * pushing nothing, when the stack cannot grow that much. */
#define FLUX_NOTIFY_SPACE 8
int flux_preparenotify(lua_State *L, int subscribers);

/* Sets the function print and io.write call before they write anything (NULL: none): the shell's prompt
 * hides the line being edited before an effect's callback prints above it. One for the process. */
void flux_setoutputhook(void (*hook)(void));

#endif
