/*
 * Instruction budget and interrupts, the way lua.c stops a script: no hook while nothing asks for one.
 *
 * In Lua 5.4 any hook makes the interpreter check every instruction, so a count hook that is always set
 * makes all Lua code about twice as slow. The count hook is therefore set only
 * - for a call with an instruction budget (every FLUX_HOOK_INTERVAL instructions), and
 * - when an interrupt is requested: flux_interrupt and flux_interrupt_all set it, to fire at the next
 *   instruction, on the thread running Lua code in that state (lua_sethook is async-signal-safe; lua.c's
 *   SIGINT handler does the same).
 * It is removed when the outermost call returns, and a hook that fires with nothing to watch removes
 * itself (a coroutine keeps the hook of the thread that created it).
 *
 * To find the thread to set the hook on, each state records the thread running Lua code (`running`):
 * flux_pcall sets it, and so do coroutine.resume and coroutine.wrap, which are replaced by versions that
 * do what lcorolib's do and also keep `running` up to date. flux_interrupt_all reaches every state with
 * a call running through a process-wide table of them.
 *
 * The requester bumps a counter and then sets the hook; the state publishes `running` and then reads the
 * counters. Both sides use sequentially consistent atomics, so at least one of them sees the other: a
 * request is never lost between the two.
 *
 * Included by shim.h after the control block.
 */
#ifndef FLUX_LUA_HOOK_H
#define FLUX_LUA_HOOK_H

#include <sched.h>

/* Places in the table of states running a call. A state that finds none falls back to a polling hook. */
#define FLUX_RUNNING_SLOTS 64

/* ---------------------------------------------------------------------------------------------------------
 * Process-wide: the interrupt counter and the table of running states
 * ------------------------------------------------------------------------------------------------------- */

/* The process-wide interrupt counter. Weak, so all object files share one copy (a static variable in a
 * header would give each its own). */
__attribute__((weak)) volatile sig_atomic_t *flux_global_interrupts(void) {
    static volatile sig_atomic_t counter;
    return &counter;
}

typedef struct FluxRunningTable {
    FluxControl *slots[FLUX_RUNNING_SLOTS]; /* the states with an outermost call running */
    int visitors;                           /* interrupters reading a state's `running` now */
} FluxRunningTable;

/* The table of states running a call. Weak, for the same reason as the counter. */
__attribute__((weak)) FluxRunningTable *flux_running_table(void) {
    static FluxRunningTable table;
    return &table;
}

/* ---------------------------------------------------------------------------------------------------------
 * The count hook
 * ------------------------------------------------------------------------------------------------------- */

/* Requests made before the outermost call began do not count: they were meant for an earlier one. */
static inline int flux_interrupt_pending(FluxControl *control) {
    return __atomic_load_n(&control->interrupt_requests, __ATOMIC_SEQ_CST) != control->interrupts_seen
        || __atomic_load_n(flux_global_interrupts(), __ATOMIC_SEQ_CST) != control->global_interrupts_seen;
}

void flux_hook(lua_State *L, lua_Debug *ar);

/* Makes the hook fire at L's next instruction. */
static inline void flux_hooknow(lua_State *L) {
    lua_sethook(L, flux_hook, LUA_MASKCOUNT, 1);
}

/* How often the hook fires while a budget is set: every FLUX_HOOK_INTERVAL instructions, or every `budget`
 * ones when that is smaller. */
static inline int flux_hookcount(long long budget) {
    return budget > 0 && budget < FLUX_HOOK_INTERVAL ? (int)budget : FLUX_HOOK_INTERVAL;
}

/* Whether a call is running that the hook must watch all along: one with a budget, or one polling. */
static inline int flux_watched(FluxControl *control) {
    return control->depth > 0 && (control->budget > 0 || control->polling);
}

/* Sets the hook L needs now: at the next instruction when the call is being stopped or an interrupt is
 * pending, at its pace when the call is watched, none otherwise. The hook is set before the counters are
 * read, so a request made meanwhile is seen here or finds the hook it set kept. */
static inline void flux_sethook(lua_State *L, FluxControl *control) {
    if (flux_watched(control)) {
        if (lua_gethook(L) != flux_hook || lua_gethookcount(L) != control->hook_count)
            lua_sethook(L, flux_hook, LUA_MASKCOUNT, control->hook_count);
    } else if (lua_gethook(L) == flux_hook) {
        lua_sethook(L, NULL, 0, 0);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (control->depth > 0 && (control->stop != FLUX_STOP_NONE || flux_interrupt_pending(control)))
        flux_hooknow(L);
}

/* Weak, so there is one hook in the process and `lua_gethook(L) == flux_hook` recognises it wherever it
 * was set. */
__attribute__((weak)) void flux_hook(lua_State *L, lua_Debug *ar) {
    FluxControl *control = flux_getcontrol(L);
    (void)ar;
    if (control->stop == FLUX_STOP_NONE && control->depth > 0) {
        if (flux_interrupt_pending(control))
            control->stop = FLUX_STOP_INTERRUPTED;
        else if (control->budget > 0 && (control->remaining -= lua_gethookcount(L)) <= 0)
            control->stop = FLUX_STOP_BUDGET;
    }
    if (control->stop == FLUX_STOP_NONE || control->depth == 0) {
        flux_sethook(L, control); /* back to its pace, or gone when nothing needs watching */
        return;
    }
    /* Raise again at every instruction until the outermost call returns, so a script that catches the
     * error with pcall cannot keep running. */
    flux_hooknow(L);
    luaL_where(L, 0); /* level 0: the Lua function that was running, not its caller */
    lua_pushstring(L, control->stop == FLUX_STOP_INTERRUPTED ? "interrupted" : "instruction budget exceeded");
    lua_concat(L, 2);
    lua_error(L);
}

/* ---------------------------------------------------------------------------------------------------------
 * Interrupts: async-signal-safe, callable from any thread
 * ------------------------------------------------------------------------------------------------------- */

/* Sets the hook on the thread running Lua code in `control`'s state, if a call is running. The visitor
 * count keeps the state from being closed meanwhile (flux_end_outermost waits for it). */
static inline void flux_poke(FluxControl *control) {
    FluxRunningTable *table = flux_running_table();
    lua_State *running;
    __atomic_fetch_add(&table->visitors, 1, __ATOMIC_SEQ_CST);
    running = __atomic_load_n(&control->running, __ATOMIC_SEQ_CST);
    if (running != NULL) flux_hooknow(running);
    __atomic_fetch_sub(&table->visitors, 1, __ATOMIC_SEQ_CST);
}

/* Asks the call running in one state to stop with "interrupted". */
static inline void flux_interrupt(FluxControl *control) {
    __atomic_fetch_add(&control->interrupt_requests, 1, __ATOMIC_SEQ_CST);
    flux_poke(control);
}

/* Asks the calls running in every state to stop with "interrupted": for a SIGINT handler. */
static inline void flux_interrupt_all(void) {
    FluxRunningTable *table = flux_running_table();
    int i;
    __atomic_fetch_add(flux_global_interrupts(), 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&table->visitors, 1, __ATOMIC_SEQ_CST);
    for (i = 0; i < FLUX_RUNNING_SLOTS; i++) {
        FluxControl *control = __atomic_load_n(&table->slots[i], __ATOMIC_SEQ_CST);
        lua_State *running = control != NULL ? __atomic_load_n(&control->running, __ATOMIC_SEQ_CST) : NULL;
        if (running != NULL) flux_hooknow(running);
    }
    __atomic_fetch_sub(&table->visitors, 1, __ATOMIC_SEQ_CST);
}

/* ---------------------------------------------------------------------------------------------------------
 * Calls: where the running thread is published and the hook set or removed
 * ------------------------------------------------------------------------------------------------------- */

/* Publishes L as the thread running Lua code, then sets the hook it needs. */
static inline void flux_setrunning(lua_State *L, FluxControl *control) {
    __atomic_store_n(&control->running, L, __ATOMIC_SEQ_CST);
    flux_sethook(L, control);
}

/* First call of a burst: fresh budget, earlier interrupt requests forgotten, a place in the table of
 * running states (or, when the table is full, a hook that polls as it always did). */
static inline void flux_begin_outermost(lua_State *L, FluxControl *control) {
    FluxRunningTable *table = flux_running_table();
    int i;
    control->stop = FLUX_STOP_NONE;
    control->remaining = control->budget;
    control->hook_count = flux_hookcount(control->budget);
    control->interrupts_seen = __atomic_load_n(&control->interrupt_requests, __ATOMIC_SEQ_CST);
    control->global_interrupts_seen = __atomic_load_n(flux_global_interrupts(), __ATOMIC_SEQ_CST);
    control->slot = -1;
    for (i = 0; i < FLUX_RUNNING_SLOTS; i++) {
        FluxControl *empty = NULL;
        if (__atomic_load_n(&table->slots[i], __ATOMIC_RELAXED) == NULL
            && __atomic_compare_exchange_n(&table->slots[i], &empty, control, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            control->slot = i;
            break;
        }
    }
    control->polling = control->slot < 0;
    control->depth = 1; /* for flux_sethook; flux_pcallwith counts the call itself */
    flux_setrunning(L, control);
    control->depth = 0;
}

/* The outermost call returned: no hook, no running thread, the place in the table given back, and no
 * interrupter left reading `running` (the state may be closed next). */
static inline void flux_end_outermost(lua_State *L, FluxControl *control) {
    FluxRunningTable *table = flux_running_table();
    __atomic_store_n(&control->running, NULL, __ATOMIC_SEQ_CST);
    if (control->slot >= 0) __atomic_store_n(&table->slots[control->slot], NULL, __ATOMIC_SEQ_CST);
    control->slot = -1;
    control->polling = 0;
    control->stop = FLUX_STOP_NONE;
    while (__atomic_load_n(&table->visitors, __ATOMIC_SEQ_CST) != 0) sched_yield();
    if (lua_gethook(L) == flux_hook) lua_sethook(L, NULL, 0, 0);
}

/* A nested call on L (Swift called from Lua calls Lua again, perhaps from a coroutine). */
static inline void flux_enter(lua_State *L, FluxControl *control) {
    if (control->running != L) flux_setrunning(L, control);
}

/* A nested call returned to the thread `outer`, which runs on. On another thread, `outer` is published
 * again and gets the hook it needs now; on the same one only a stop needs the hook (an interrupter found
 * this thread all along). */
static inline void flux_leave(lua_State *outer, FluxControl *control) {
    if (outer == NULL) return;
    if (outer != control->running) flux_setrunning(outer, control);
    else if (control->stop != FLUX_STOP_NONE) flux_hooknow(outer);
}

/* Sets the instruction budget; during a call it counts from now, and the hook starts or stops. */
static inline void flux_setbudget(FluxControl *control, long long budget) {
    control->budget = budget;
    control->remaining = budget;
    control->hook_count = flux_hookcount(budget);
    if (control->depth > 0 && control->running != NULL) flux_sethook(control->running, control);
}

/* ---------------------------------------------------------------------------------------------------------
 * coroutine.resume and coroutine.wrap that keep `running` up to date
 * ------------------------------------------------------------------------------------------------------- */

/* lcorolib's auxresume, with co published as the running thread while it runs and the resumer's hook
 * set again afterwards (a stop raised in co must go on in the resumer). Raises nothing. */
static int flux_auxresume(lua_State *L, lua_State *co, int narg) {
    FluxControl *control = flux_getcontrol(L);
    lua_State *outer = control->running;
    int status, nres;
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    if (outer != NULL) flux_setrunning(co, control);
    status = lua_resume(co, L, narg, &nres);
    if (outer != NULL) flux_setrunning(outer, control);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1); /* the error message */
    return -1;
}

/* coroutine.resume(co, ...), as in lcorolib. */
static int flux_coresume(lua_State *L) {
    lua_State *co;
    int r;
    luaL_checktype(L, 1, LUA_TTHREAD);
    co = lua_tothread(L, 1);
    r = flux_auxresume(L, co, lua_gettop(L) - 1);
    if (r < 0) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2; /* false, message */
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -(r + 1));
    return r + 1; /* true, results… */
}

/* The function coroutine.wrap returns, as lcorolib's auxwrap. */
static int flux_auxwrap(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = flux_auxresume(L, co, lua_gettop(L));
    if (r < 0) {
        int status = lua_status(co);
        if (status != LUA_OK && status != LUA_YIELD) { /* an error in the coroutine */
            status = lua_resetthread(co);              /* close its to-be-closed variables */
            lua_xmove(co, L, 1);
        }
        if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        }
        return lua_error(L);
    }
    return r;
}

/* coroutine.wrap(f), as in lcorolib. */
static int flux_cowrap(lua_State *L) {
    lua_State *co;
    luaL_checktype(L, 1, LUA_TFUNCTION);
    co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, flux_auxwrap, 1);
    return 1;
}

/* Replaces coroutine.resume and coroutine.wrap (luaL_openlibs must have run). */
static inline void flux_opencoroutines(lua_State *L) {
    if (lua_getglobal(L, "coroutine") == LUA_TTABLE) {
        lua_pushcfunction(L, flux_coresume);
        lua_setfield(L, -2, "resume");
        lua_pushcfunction(L, flux_cowrap);
        lua_setfield(L, -2, "wrap");
    }
    lua_pop(L, 1);
}

#endif
