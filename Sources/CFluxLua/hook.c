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
 * flux_pcall sets it, and so do coroutine.resume, coroutine.wrap and coroutine.close (whose __close
 * methods run on the coroutine closed), which are replaced by versions that do what lcorolib's do and also
 * keep `running` up to date. flux_interrupt_all reaches every state with
 * a call running through a process-wide table of them.
 *
 * A script's own hook (debug.sethook) never replaces the host's: debug.sethook and debug.gethook are
 * replaced by versions that record the script's hook, and the host's hook calls it for the events it
 * asked for, as a debugger chains hooks. It runs in a coroutine of its own, where the budget and
 * interrupts reach it (Lua runs no hook inside a hook).
 *
 * The requester bumps a counter and then sets the hook; the state publishes `running` and then reads the
 * counters. Both sides use sequentially consistent atomics, so at least one of them sees the other: a
 * request is never lost between the two.
 */
#include <sched.h>
#include <signal.h>
#include <string.h>
#include "internal.h"

/* Places in the table of states running a call. A state that finds none falls back to a polling hook. */
#define FLUX_RUNNING_SLOTS 64

/* ---------------------------------------------------------------------------------------------------------
 * Process-wide: the interrupt counter and the table of running states
 * ------------------------------------------------------------------------------------------------------- */

/* The process-wide interrupt counter. */
static volatile sig_atomic_t global_interrupts;

typedef struct FluxRunningTable {
    FluxControl *slots[FLUX_RUNNING_SLOTS]; /* the states with an outermost call running */
    int visitors;                           /* interrupters reading a state's `running` now */
} FluxRunningTable;

/* The table of states running a call. */
static FluxRunningTable running_table;

/* ---------------------------------------------------------------------------------------------------------
 * The count hook
 * ------------------------------------------------------------------------------------------------------- */

/* Requests made before the outermost call began do not count: they were meant for an earlier one. */
static int flux_interrupt_pending(FluxControl *control) {
    return __atomic_load_n(&control->interrupt_requests, __ATOMIC_SEQ_CST) != control->interrupts_seen
        || __atomic_load_n(&global_interrupts, __ATOMIC_SEQ_CST) != control->global_interrupts_seen;
}

void flux_hook(lua_State *L, lua_Debug *ar);

#define FLUX_HOOKS_KEY "flux.hooks"
#define FLUX_HOOKTHREAD_KEY "flux.hookthread"
/* What one call of a script's hook costs the budget, besides the instructions it runs. */
#define FLUX_HOOK_CALL_COST 100

/* The mask of the hook a script set on L with debug.sethook, and its count; 0 when it set none. Allocates
 * nothing. */
static int flux_scripthook(lua_State *L, FluxControl *control, int *count) {
    int mask = 0;
    *count = 0;
    if (!control->script_hooks || !lua_checkstack(L, 3)) return 0;
    lua_getfield(L, LUA_REGISTRYINDEX, FLUX_HOOKS_KEY); /* [.., hooks] */
    lua_pushthread(L);
    if (lua_rawget(L, -2) == LUA_TTABLE) {               /* [.., hooks, entry] */
        lua_rawgeti(L, -1, 2);
        mask = (int)lua_tointeger(L, -1);
        lua_rawgeti(L, -2, 3);
        *count = (int)lua_tointeger(L, -1);
        lua_pop(L, 2);
    }
    lua_pop(L, 2);
    return mask;
}

/* Makes the hook fire at L's next instruction, keeping the events a script's hook asked for. */
static void flux_hooknow(lua_State *L) {
    lua_sethook(L, flux_hook, lua_gethookmask(L) | LUA_MASKCOUNT, 1);
}

/* How often the hook fires while a budget is set: every FLUX_HOOK_INTERVAL instructions, or every `budget`
 * ones when that is smaller. */
static int flux_hookcount(long long budget) {
    return budget > 0 && budget < FLUX_HOOK_INTERVAL ? (int)budget : FLUX_HOOK_INTERVAL;
}

/* Whether a call is running that the hook must watch all along: one with a budget, or one polling. */
static int flux_watched(FluxControl *control) {
    return control->depth > 0 && (control->budget > 0 || control->polling);
}

/* Sets the hook L needs now: at the next instruction when the call is being stopped or an interrupt is
 * pending, at its pace when the call is watched, for the script's events when it set a hook, none
 * otherwise. The hook is set before the counters are read, so a request made meanwhile is seen here or
 * finds the hook it set kept. */
static void flux_sethook(lua_State *L, FluxControl *control) {
    int count;
    int mask = flux_scripthook(L, control, &count);
    if (flux_watched(control)) {
        count = (mask & LUA_MASKCOUNT) && count < control->hook_count ? count : control->hook_count;
        mask |= LUA_MASKCOUNT;
    }
    if (mask != 0) {
        if (lua_gethook(L) != flux_hook || lua_gethookmask(L) != mask || lua_gethookcount(L) != count)
            lua_sethook(L, flux_hook, mask, count);
    } else if (lua_gethook(L) == flux_hook) {
        lua_sethook(L, NULL, 0, 0);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (control->depth > 0 && (control->stop != FLUX_STOP_NONE || flux_interrupt_pending(control)))
        flux_hooknow(L);
}

static void flux_setrunning(lua_State *L, FluxControl *control);

/* Calls the hook a script set on L for this event, if it asked for it (for a count event, once its count
 * has run out; `count` instructions ran since the last one). Like ldblib's hook it gets the event's name
 * and the line; unlike it, it runs in a coroutine of its own, where the budget and interrupts reach it.
 * Its errors are raised in L, and a hook that raised one is removed. */
static void flux_callscripthook(lua_State *L, FluxControl *control, lua_Debug *ar, int count) {
    static const char *const names[] = {"call", "return", "line", "count", "tail call"};
    lua_State *co, *outer;
    int mask, status, results;
    if (!control->script_hooks) return;
    luaL_checkstack(L, 4, "hook");
    lua_getfield(L, LUA_REGISTRYINDEX, FLUX_HOOKS_KEY);   /* [.., hooks] */
    lua_pushthread(L);
    if (lua_rawget(L, -2) != LUA_TTABLE) {                 /* [.., hooks, entry] */
        lua_pop(L, 2);
        return;
    }
    lua_rawgeti(L, -1, 2);
    mask = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (ar->event == LUA_HOOKCOUNT) {
        lua_Integer remaining;
        int due;
        if (!(mask & LUA_MASKCOUNT)) { lua_pop(L, 2); return; }
        lua_rawgeti(L, -1, 4);
        remaining = lua_tointeger(L, -1) - count;
        lua_pop(L, 1);
        due = remaining <= 0;
        if (due) {
            lua_rawgeti(L, -1, 3);
            remaining += lua_tointeger(L, -1);
            lua_pop(L, 1);
        }
        lua_pushinteger(L, remaining > 0 ? remaining : 1);
        lua_rawseti(L, -2, 4);
        if (!due) { lua_pop(L, 2); return; }
    } else {
        int event = ar->event == LUA_HOOKTAILCALL ? LUA_HOOKCALL : ar->event;
        if (!(mask & (1 << event))) { lua_pop(L, 2); return; }
    }
    /* One coroutine serves every call while it is free, so its instruction count runs on from call to
     * call and the budget sees the hook's work even when each call is short. */
    if (lua_getfield(L, LUA_REGISTRYINDEX, FLUX_HOOKTHREAD_KEY) != LUA_TTHREAD
        || lua_status(co = lua_tothread(L, -1)) != LUA_OK || lua_gettop(co) != 0) {
        lua_pop(L, 1);
        co = lua_newthread(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, FLUX_HOOKTHREAD_KEY);
    }                                                      /* [.., hooks, entry, co] */
    lua_rawgeti(L, -2, 1);
    lua_xmove(L, co, 1);                                   /* co: [f] */
    lua_pushstring(co, names[ar->event]);
    if (ar->currentline >= 0) lua_pushinteger(co, ar->currentline);
    else lua_pushnil(co);
    /* Each call costs the budget as much as a short function would: a hook run at every instruction
     * must not stretch the budget a hundredfold. */
    if (control->budget > 0) control->remaining -= FLUX_HOOK_CALL_COST;
    outer = control->running;
    if (outer != NULL) flux_setrunning(co, control);
    else lua_sethook(co, NULL, 0, 0);
    status = lua_resume(co, L, 2, &results);
    if (outer != NULL) flux_setrunning(outer, control);
    if (status == LUA_OK) lua_settop(co, 0); /* free for the next call */
    if (status != LUA_OK && status != LUA_YIELD) {
        /* A hook that fails is removed, as a debugger drops a broken one: else it would fail every call. */
        lua_pushthread(L);
        lua_pushnil(L);
        lua_rawset(L, -5);                                 /* hooks[L] = nil */
        flux_sethook(L, control);
        lua_xmove(co, L, 1);
        control->hookerror = lua_topointer(L, -1); /* a message handler must not run on it (xpcall.c) */
        lua_error(L);
    }
    lua_pop(L, 3);
}

/* The one hook the host sets: the budget, interrupts, and the script's hook chained. */
void flux_hook(lua_State *L, lua_Debug *ar) {
    FluxControl *control = flux_getcontrol(L);
    int count = ar->event == LUA_HOOKCOUNT ? lua_gethookcount(L) : 0;
    if (control->torturing) flux_torturepace(L, control, 0);
    if (ar->event == LUA_HOOKCOUNT && control->stop == FLUX_STOP_NONE && control->depth > 0) {
        if (flux_interrupt_pending(control))
            control->stop = FLUX_STOP_INTERRUPTED;
        else if (control->budget > 0 && (control->remaining -= count) <= 0)
            control->stop = FLUX_STOP_BUDGET;
    }
    if (control->stop == FLUX_STOP_NONE || control->depth == 0) {
        flux_callscripthook(L, control, ar, count);
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

/* Charges `work` instructions to the call running and raises what the hook would once the call is being
 * stopped (interrupted, or past its budget): for a library loop in C that runs no Lua code, which the hook
 * never reaches. */
void flux_checkstop(lua_State *L, long long work) {
    FluxControl *control = flux_getcontrol(L);
    if (control->depth == 0) return;
    if (control->stop == FLUX_STOP_NONE) {
        if (flux_interrupt_pending(control))
            control->stop = FLUX_STOP_INTERRUPTED;
        else if (control->budget > 0 && (control->remaining -= work) <= 0)
            control->stop = FLUX_STOP_BUDGET;
    }
    if (control->stop == FLUX_STOP_NONE) return;
    flux_hooknow(L);                                     /* and at every instruction after, as the hook does */
    luaL_where(L, 1);
    lua_pushstring(L, control->stop == FLUX_STOP_INTERRUPTED ? "interrupted" : "instruction budget exceeded");
    lua_concat(L, 2);
    lua_error(L);
}

/* ---------------------------------------------------------------------------------------------------------
 * Interrupts: async-signal-safe, callable from any thread
 * ------------------------------------------------------------------------------------------------------- */

/* Sets the hook on the thread running Lua code in `control`'s state, if a call is running. The visitor
 * count keeps the state from being closed meanwhile (flux_end_outermost waits for it). */
static void flux_poke(FluxControl *control) {
    FluxRunningTable *table = &running_table;
    lua_State *running;
    __atomic_fetch_add(&table->visitors, 1, __ATOMIC_SEQ_CST);
    running = __atomic_load_n(&control->running, __ATOMIC_SEQ_CST);
    if (running != NULL) flux_hooknow(running);
    __atomic_fetch_sub(&table->visitors, 1, __ATOMIC_SEQ_CST);
}

/* Asks the call running in one state to stop with "interrupted". */
void flux_interrupt(FluxControl *control) {
    __atomic_fetch_add(&control->interrupt_requests, 1, __ATOMIC_SEQ_CST);
    flux_poke(control);
}

/* Asks the calls running in every state to stop with "interrupted": for a SIGINT handler. */
void flux_interrupt_all(void) {
    FluxRunningTable *table = &running_table;
    int i;
    __atomic_fetch_add(&global_interrupts, 1, __ATOMIC_SEQ_CST);
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
static void flux_setrunning(lua_State *L, FluxControl *control) {
    __atomic_store_n(&control->running, L, __ATOMIC_SEQ_CST);
    flux_sethook(L, control);
}

/* First call of a burst: fresh budget, earlier interrupt requests forgotten, a place in the table of
 * running states (or, when the table is full, a hook that polls as it always did). */
static void flux_begin_outermost(lua_State *L, FluxControl *control) {
    FluxRunningTable *table = &running_table;
    int i;
    control->stop = FLUX_STOP_NONE;
    control->remaining = control->budget;
    control->hook_count = flux_hookcount(control->budget);
    control->interrupts_seen = __atomic_load_n(&control->interrupt_requests, __ATOMIC_SEQ_CST);
    control->global_interrupts_seen = __atomic_load_n(&global_interrupts, __ATOMIC_SEQ_CST);
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
static void flux_end_outermost(lua_State *L, FluxControl *control) {
    FluxRunningTable *table = &running_table;
    __atomic_store_n(&control->running, NULL, __ATOMIC_SEQ_CST);
    if (control->slot >= 0) __atomic_store_n(&table->slots[control->slot], NULL, __ATOMIC_SEQ_CST);
    control->slot = -1;
    control->polling = 0;
    control->stop = FLUX_STOP_NONE;
    while (__atomic_load_n(&table->visitors, __ATOMIC_SEQ_CST) != 0) sched_yield();
    flux_sethook(L, control); /* nothing to watch: only a script's own hook stays */
}

/* A nested call on L (Swift called from Lua calls Lua again, perhaps from a coroutine). */
static void flux_enter(lua_State *L, FluxControl *control) {
    if (control->running != L) flux_setrunning(L, control);
}

/* A nested call returned to the thread `outer`, which runs on. On another thread, `outer` is published
 * again and gets the hook it needs now; on the same one only a stop needs the hook (an interrupter found
 * this thread all along). */
static void flux_leave(lua_State *outer, FluxControl *control) {
    if (outer == NULL) return;
    if (outer != control->running) flux_setrunning(outer, control);
    else if (control->stop != FLUX_STOP_NONE) flux_hooknow(outer);
}

/* Sets the instruction budget; during a call it counts from now, and the hook starts or stops. */
void flux_setbudget(FluxControl *control, long long budget) {
    control->budget = budget;
    control->remaining = budget;
    control->hook_count = flux_hookcount(budget);
    if (control->depth > 0 && control->running != NULL) flux_sethook(control->running, control);
}

/* Runs co (a function and its `nargs` arguments pushed on it) as a call of its own, with `budget`
 * instructions, the memory cap, and interrupts reaching it: for code Lua would run with hooks off, such as
 * a finalizer (GCTM turns hooks off on the thread it runs on, not on co). Inside a call, co's budget is
 * its own and the call's is put back afterwards; an interrupt stops co and then the call. */
int flux_resumebounded(lua_State *L, lua_State *co, int nargs, long long budget, int *nres) {
    FluxControl *control = flux_getcontrol(L);
    lua_State *outer = control->running;
    long long saved_budget = control->budget, saved_remaining = control->remaining;
    int saved_count = control->hook_count, saved_stop = control->stop, enforce = control->enforce;
    int outermost = control->depth == 0, status;
    control->budget = budget;
    if (outermost) {
        flux_begin_outermost(co, control);
    } else {
        control->remaining = budget;
        control->hook_count = flux_hookcount(budget);
        control->stop = FLUX_STOP_NONE;
        flux_setrunning(co, control);
    }
    control->enforce = 1;
    control->depth++;
    status = lua_resume(co, L, nargs, nres);
    control->depth--;
    control->enforce = enforce;
    control->budget = saved_budget;
    control->hook_count = saved_count;
    if (outermost) {
        flux_end_outermost(co, control);
    } else {
        control->remaining = saved_remaining;
        control->stop = saved_stop;
        if (outer != NULL) flux_setrunning(outer, control); /* a pending interrupt sets its hook now */
    }
    return status;
}

/* ---------------------------------------------------------------------------------------------------------
 * coroutine.resume, coroutine.wrap and coroutine.close that keep `running` up to date
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

/* How deeply closing coroutines may nest (a __close that closes another coroutine, and so on): Lua 5.4.4
 * counts the C calls of the __close methods lua_resetthread runs from the closed coroutine's own count, not
 * the caller's, so a chain of them would overflow the C stack. */
#define FLUX_CLOSE_MAX_DEPTH 16

/* Closes co's pending to-be-closed variables, as lua_resetthread, with co published as the running thread
 * meanwhile (an interrupt reaches a __close that loops) and the nesting bounded. Returns lua_resetthread's
 * status, the error on co when it failed; raises when closing nests too deeply. */
static int flux_closethread(lua_State *L, lua_State *co) {
    FluxControl *control = flux_getcontrol(L);
    lua_State *outer = control->running;
    int status;
    if (control->closing >= FLUX_CLOSE_MAX_DEPTH) luaL_error(L, "C stack overflow (coroutines closed inside __close)");
    control->closing++;
    if (outer != NULL) flux_setrunning(co, control);
    status = lua_resetthread(co);
    if (outer != NULL) flux_setrunning(outer, control);
    control->closing--;
    return status;
}

/* The function coroutine.wrap returns, as lcorolib's auxwrap. */
static int flux_auxwrap(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = flux_auxresume(L, co, lua_gettop(L));
    if (r < 0) {
        int status = lua_status(co);
        if (status != LUA_OK && status != LUA_YIELD) { /* an error in the coroutine */
            status = flux_closethread(L, co);          /* close its to-be-closed variables */
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

/* The name of co's status, as lcorolib's auxstatus, seen from L. */
static const char *flux_costatus(lua_State *L, lua_State *co) {
    lua_Debug ar;
    if (L == co) return "running";
    switch (lua_status(co)) {
    case LUA_YIELD:
        return "suspended";
    case LUA_OK:
        if (lua_getstack(co, 0, &ar)) return "normal";
        return lua_gettop(co) == 0 ? "dead" : "suspended";
    default:
        return "dead";                                  /* it failed */
    }
}

/* coroutine.close(co), as in lcorolib. */
static int flux_coclose(lua_State *L) {
    lua_State *co;
    const char *status;
    luaL_checktype(L, 1, LUA_TTHREAD);
    co = lua_tothread(L, 1);
    status = flux_costatus(L, co);
    if (status[0] != 'd' && status[0] != 's') return luaL_error(L, "cannot close a %s coroutine", status);
    if (flux_closethread(L, co) == LUA_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_xmove(co, L, 1);                                 /* the error */
    return 2;
}

/* Replaces coroutine.resume, coroutine.wrap and coroutine.close (luaL_openlibs must have run). */
static void flux_opencoroutines(lua_State *L) {
    if (lua_getglobal(L, "coroutine") == LUA_TTABLE) {
        lua_pushcfunction(L, flux_coresume);
        lua_setfield(L, -2, "resume");
        lua_pushcfunction(L, flux_cowrap);
        lua_setfield(L, -2, "wrap");
        lua_pushcfunction(L, flux_coclose);
        lua_setfield(L, -2, "close");
    }
    lua_pop(L, 1);
}


/* ---------------------------------------------------------------------------------------------------------
 * debug.sethook and debug.gethook that chain the script's hook to the host's
 * ------------------------------------------------------------------------------------------------------- */

/* [.., thread] for L1, pushed on L. */
static void flux_pushthreadof(lua_State *L, lua_State *L1) {
    if (L1 == L) {
        lua_pushthread(L);
    } else {
        if (!lua_checkstack(L1, 1)) luaL_error(L, "stack overflow");
        lua_pushthread(L1);
        lua_xmove(L1, L, 1);
    }
}

/* debug.sethook([thread,] hook, mask [, count]), as in ldblib: the hook is recorded, and the host's hook
 * calls it. */
static int flux_sethookfunction(lua_State *L) {
    FluxControl *control = flux_getcontrol(L);
    int arg = lua_type(L, 1) == LUA_TTHREAD ? 1 : 0;
    lua_State *L1 = arg ? lua_tothread(L, 1) : L;
    int mask = 0;
    lua_Integer count = 0;
    if (!lua_isnoneornil(L, arg + 1)) {
        const char *smask = luaL_checkstring(L, arg + 2);
        luaL_checktype(L, arg + 1, LUA_TFUNCTION);
        count = luaL_optinteger(L, arg + 3, 0);
        if (count < 0) count = 0;
        if (count > 0x7fffffff) count = 0x7fffffff;
        if (strchr(smask, 'c')) mask |= LUA_MASKCALL;
        if (strchr(smask, 'r')) mask |= LUA_MASKRET;
        if (strchr(smask, 'l')) mask |= LUA_MASKLINE;
        if (count > 0) mask |= LUA_MASKCOUNT;
    }
    lua_settop(L, arg + 1);
    lua_getfield(L, LUA_REGISTRYINDEX, FLUX_HOOKS_KEY); /* [.., hook, hooks] */
    flux_pushthreadof(L, L1);                           /* [.., hook, hooks, thread] */
    if (mask == 0) {
        lua_pushnil(L);
    } else {
        lua_createtable(L, 4, 0);                       /* [.., hook, hooks, thread, entry] */
        lua_pushvalue(L, arg + 1);
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, mask);
        lua_rawseti(L, -2, 2);
        lua_pushinteger(L, count);
        lua_rawseti(L, -2, 3);
        lua_pushinteger(L, count);
        lua_rawseti(L, -2, 4);
        control->script_hooks = 1;
    }
    lua_rawset(L, -3);
    flux_sethook(L1, control);
    return 0;
}

/* debug.gethook([thread]) -> hook, mask, count of the script's own hook, as in ldblib; nil when none. */
static int flux_gethookfunction(lua_State *L) {
    lua_State *L1 = lua_type(L, 1) == LUA_TTHREAD ? lua_tothread(L, 1) : L;
    char smask[4];
    int mask, n = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, FLUX_HOOKS_KEY);
    flux_pushthreadof(L, L1);
    if (lua_rawget(L, -2) != LUA_TTABLE) {
        lua_pushnil(L);
        return 1;
    }
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    mask = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (mask & LUA_MASKCALL) smask[n++] = 'c';
    if (mask & LUA_MASKRET) smask[n++] = 'r';
    if (mask & LUA_MASKLINE) smask[n++] = 'l';
    lua_pushlstring(L, smask, n);
    lua_rawgeti(L, -3, 3);
    return 3;
}

/* ---------------------------------------------------------------------------------------------------------
 * Setup, and the calls' way in and out
 * ------------------------------------------------------------------------------------------------------- */

void flux_openhooks(lua_State *L) {
    lua_newtable(L);                                     /* hooks[thread] = {hook, mask, count, left} */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, FLUX_HOOKS_KEY);
    flux_opencoroutines(L);
    if (lua_getglobal(L, "debug") == LUA_TTABLE) {
        lua_pushcfunction(L, flux_sethookfunction);
        lua_setfield(L, -2, "sethook");
        lua_pushcfunction(L, flux_gethookfunction);
        lua_setfield(L, -2, "gethook");
    }
    lua_pop(L, 1);
}

void flux_callbegin(lua_State *L, FluxControl *control, lua_State **outer) {
    *outer = control->running;
    if (control->depth == 0) flux_torturepace(L, control, 1);
    if (control->depth == 0) flux_begin_outermost(L, control);
    else flux_enter(L, control);
}

void flux_callend(lua_State *L, lua_State *outer, FluxControl *control) {
    if (control->depth == 0) flux_end_outermost(L, control);
    else flux_leave(outer, control);
}
