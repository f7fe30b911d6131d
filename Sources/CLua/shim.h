/*
 * The C side of FluxLua: everything Swift cannot or must not do itself.
 *
 * - The C API's function-like macros (lua_pop, lua_newtable, lua_pcall, …), which Swift cannot import.
 * - Everything that may raise a Lua error (longjmp): the trampoline that calls Swift functions and raises
 *   their errors once Swift has returned, the count hook that stops runaway scripts (hook.h), the message
 *   handler.
 *   A longjmp must never cross a Swift frame, so Swift only calls API functions that cannot raise, and
 *   calls Lua code only through flux_pcall.
 * - The allocator that caps a state's memory.
 *
 * Everything is `static inline` so the module needs no C target. The process-wide variables (the
 * interrupt counter a signal handler bumps, the table of states running a call) live in weak functions,
 * so every object file that includes this header shares a single copy.
 */
#ifndef FLUX_LUA_SHIM_H
#define FLUX_LUA_SHIM_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <lua5.4/lua.h>
#include <lua5.4/lauxlib.h>
#include <lua5.4/lualib.h>

/* ---------------------------------------------------------------------------------------------------------
 * Macros Swift cannot import
 * ------------------------------------------------------------------------------------------------------- */

static inline int flux_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline int flux_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline void flux_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void flux_newtable(lua_State *L) { lua_newtable(L); }
static inline void flux_insert(lua_State *L, int idx) { lua_insert(L, idx); }
static inline void flux_remove(lua_State *L, int idx) { lua_remove(L, idx); }
static inline void flux_replace(lua_State *L, int idx) { lua_replace(L, idx); }
static inline void flux_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
static inline int flux_getmetatable(lua_State *L, const char *tname) { return luaL_getmetatable(L, tname); }
static inline const char *flux_typename(lua_State *L, int idx) { return luaL_typename(L, idx); }

/* ---------------------------------------------------------------------------------------------------------
 * Per-state control block
 * ------------------------------------------------------------------------------------------------------- */

/* Calls the Swift function `box` stands for. Returns its result count, or one of the FLUX_RAISE values
 * once it has pushed an error value. */
typedef int (*FluxSwiftCall)(lua_State *L, void *box);
/* Releases a Swift object a userdata held (a function box or an object pushed to Lua). */
typedef void (*FluxSwiftRelease)(void *box);

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

/* Registry names. */
#define FLUX_BOX_METATABLE "flux.SwiftFunction"
#define FLUX_TRACEBACK_KEY "flux.traceback"

typedef struct FluxControl {
    lua_State *state;             /* the main thread; NULL once the state is closing */
    void *owner;                  /* the Swift object that owns this block (unretained) */
    FluxSwiftCall call;
    FluxSwiftRelease release;

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
    int polling;                  /* no place was free: the hook polls all along instead (the old way) */
} FluxControl;

/* The block of the state L belongs to; every thread of a state carries it in its extra space. */
static inline FluxControl *flux_getcontrol(lua_State *L) {
    return *(FluxControl **)lua_getextraspace(L);
}

/* ---------------------------------------------------------------------------------------------------------
 * Allocator with a cap
 * ------------------------------------------------------------------------------------------------------- */

/* A lua_Alloc that refuses to grow past control->limit while Lua code runs; Lua then collects garbage and
 * retries, and raises "not enough memory" if that does not help. Shrinking never fails, as Lua requires. */
static void *flux_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    FluxControl *control = (FluxControl *)ud;
    size_t old = ptr != NULL ? osize : 0; /* without a block, osize tells the object's type */
    if (nsize == 0) {
        free(ptr);
        control->used -= old;
        return NULL;
    }
    if (control->enforce && control->limit != 0 && nsize > old
        && (control->used >= control->limit || nsize - old > control->limit - control->used))
        return NULL;
    void *block = realloc(ptr, nsize);
    if (block != NULL) control->used = control->used - old + nsize;
    return block;
}

#include "hook.h"

/* ---------------------------------------------------------------------------------------------------------
 * Message handler and protected calls
 * ------------------------------------------------------------------------------------------------------- */

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
    luaL_traceback(L, L, NULL, 1);                              /* [.., message, traceback] */
    lua_setfield(L, LUA_REGISTRYINDEX, FLUX_TRACEBACK_KEY);     /* [.., message] */
    return 1;
}

/* [..] -> [.., handler]. The message handler, for flux_pcallwith; a light C function: no allocation. */
static inline void flux_pushmsghandler(lua_State *L) {
    lua_pushcfunction(L, flux_msghandler);
}

/* [.., handler, .., f, args…] -> [.., handler, .., results…] or [.., handler, .., message].
 * lua_pcall with the message handler at `handler`, the memory cap enforced, and the budget and
 * interrupts checked. `stop` receives why the hook stopped the call. */
static inline int flux_pcallwith(lua_State *L, int nargs, int nresults, int handler, int *stop) {
    FluxControl *control = flux_getcontrol(L);
    int enforce = control->enforce;
    lua_State *outer = control->running;
    int status;
    if (control->depth == 0) flux_begin_outermost(L, control);
    else flux_enter(L, control);
    control->enforce = 1;
    control->depth++;
    status = lua_pcall(L, nargs, nresults, handler);
    control->depth--;
    control->enforce = enforce;
    *stop = control->stop;
    if (control->depth == 0) flux_end_outermost(L, control);
    else flux_leave(outer, control);
    return status;
}

/* [.., f, args…] -> [.., results…] or [.., message]. flux_pcallwith, the handler slipped in below the
 * function and taken out afterwards. Needs one free slot. */
static inline int flux_pcall(lua_State *L, int nargs, int nresults, int *stop) {
    int base = lua_gettop(L) - nargs; /* the function's slot; the handler goes there */
    int status;
    flux_pushmsghandler(L);
    lua_insert(L, base);
    status = flux_pcallwith(L, nargs, nresults, base, stop);
    lua_remove(L, base);
    return status;
}

/* [..] -> [.., traceback or false]. The traceback the handler saved for the last runtime error. */
static inline void flux_pushtraceback(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, FLUX_TRACEBACK_KEY);
    lua_pushboolean(L, 0); /* false, not nil: the key stays, so the handler's next store never allocates */
    lua_setfield(L, LUA_REGISTRYINDEX, FLUX_TRACEBACK_KEY);
}

/* [..] -> [.., chunk] or [.., message]. Compiles under the memory cap; the parser is protected. */
static inline int flux_load(lua_State *L, const char *source, size_t length, const char *name, const char *mode) {
    FluxControl *control = flux_getcontrol(L);
    int enforce = control->enforce;
    int status;
    control->enforce = 1;
    status = luaL_loadbufferx(L, source, length, name, mode);
    control->enforce = enforce;
    return status;
}

/* ---------------------------------------------------------------------------------------------------------
 * Swift functions and objects
 * ------------------------------------------------------------------------------------------------------- */

/* The C function behind every Swift function. Upvalue 1 is a userdata holding the Swift box. Swift runs
 * without the memory cap (an allocation failure would raise across its frames) and reports errors by
 * returning a FLUX_RAISE value; the error is raised here, after Swift has returned. */
static int flux_trampoline(lua_State *L) {
    FluxControl *control = flux_getcontrol(L);
    void *box = *(void **)lua_touserdata(L, lua_upvalueindex(1));
    int enforce = control->enforce;
    int results;
    if (box == NULL) return luaL_error(L, "attempt to call a Swift function that was released");
    control->enforce = 0;
    results = control->call(L, box);
    control->enforce = enforce;
    if (results >= 0) return results;
    if (results == FLUX_RAISE_WHERE && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);  /* [.., message, where] */
        lua_insert(L, -2); /* [.., where, message] */
        lua_concat(L, 2);  /* [.., where..message] */
    }
    return lua_error(L);
}

/* __gc of every userdata that holds a Swift object: drops the retain the userdata held. The slot is
 * cleared first, so a finalized userdata reached again (another finalizer, lua_close) holds nothing. */
static int flux_box_gc(lua_State *L) {
    void **slot = (void **)lua_touserdata(L, 1);
    if (slot != NULL && *slot != NULL) {
        void *box = *slot;
        *slot = NULL;
        flux_getcontrol(L)->release(box);
    }
    return 0;
}

/* [..] -> [.., userdata]. A userdata holding `box`, which the userdata now owns; no metatable yet. */
static inline void flux_newbox(lua_State *L, void *box) {
    void **slot = (void **)lua_newuserdatauv(L, sizeof(void *), 0);
    *slot = box;
}

/* The Swift object a userdata made by flux_newbox holds, or NULL once finalized. */
static inline void *flux_box(lua_State *L, int idx) {
    void **slot = (void **)lua_touserdata(L, idx);
    return slot != NULL ? *slot : NULL;
}

/* [.., metatable] -> [.., metatable]. Makes the userdata that get this metatable release their box. */
static inline void flux_setboxgc(lua_State *L) {
    lua_pushcfunction(L, flux_box_gc);
    lua_setfield(L, -2, "__gc");
}

/* [..] -> [.., function]. A Lua function calling the Swift function `box` stands for. */
static inline void flux_pushswiftfunction(lua_State *L, void *box) {
    flux_newbox(L, box);                     /* [.., box] */
    luaL_setmetatable(L, FLUX_BOX_METATABLE);
    lua_pushcclosure(L, flux_trampoline, 1); /* [.., function] */
}

/* ---------------------------------------------------------------------------------------------------------
 * Deep copy
 * ------------------------------------------------------------------------------------------------------- */

/* How deeply nested a table flux_deepcopy copies: deeper is an error, not a C stack overflow. */
#define FLUX_COPY_MAX_DEPTH 1000

/* One deep copy's state: the stack index of the table of copies made so far (0 while no table has
 * nested), and the nesting depth now. */
typedef struct { int seen; int depth; } FluxCopy;

/* [..] -> [.., copy] (or [.., seen, copy] at the top). Copies the table at absolute index `src`:
 * values that are tables are copied, keys are kept. A table met twice is copied once, so shared tables
 * stay shared and cycles end; the table of copies that takes is made only when a table nests. */
static void flux_copytable(lua_State *L, int src, FluxCopy *c) {
    if (c->seen != 0) {
        lua_pushvalue(L, src);
        if (lua_rawget(L, c->seen) != LUA_TNIL) return; /* [.., copy] made before */
        lua_pop(L, 1);
    }
    if (++c->depth > FLUX_COPY_MAX_DEPTH) luaL_error(L, "table nested deeper than %d levels", FLUX_COPY_MAX_DEPTH);
    luaL_checkstack(L, 6, "table nested too deeply");
    lua_Integer count = 0;
    int nests = 0;
    lua_pushnil(L);
    while (lua_next(L, src) != 0) {                     /* counted first: the copy is sized once */
        nests |= lua_type(L, -1) == LUA_TTABLE;
        lua_pop(L, 1);
        count++;
    }
    if (nests && c->seen == 0) {                        /* only at the top: deeper levels come after */
        lua_newtable(L);
        c->seen = lua_gettop(L);
    }
    lua_Integer sequence = (lua_Integer)lua_rawlen(L, src);
    lua_createtable(L, (int)sequence, (int)(count > sequence ? count - sequence : 0));
    int copy = lua_gettop(L);
    if (c->seen != 0) {
        lua_pushvalue(L, src);
        lua_pushvalue(L, copy);
        lua_rawset(L, c->seen);
    }
    lua_pushnil(L);
    while (lua_next(L, src) != 0) {                     /* [.., copy, key, value] */
        if (lua_type(L, -1) == LUA_TTABLE) {
            flux_copytable(L, lua_gettop(L), c);        /* [.., copy, key, value, valuecopy] */
            lua_replace(L, -2);                         /* [.., copy, key, valuecopy] */
        }
        lua_pushvalue(L, -2);                           /* [.., copy, key, value, key] */
        lua_insert(L, -2);                              /* [.., copy, key, key, value] */
        lua_rawset(L, copy);                            /* [.., copy, key] */
    }
    c->depth--;
}

/* deepcopy(value) -> a copy of `value` whose tables are all new (metatables are not copied). */
static int flux_deepcopy(lua_State *L) {
    lua_settop(L, 1);
    if (lua_type(L, 1) == LUA_TTABLE) {
        FluxCopy c = {0, 0};
        flux_copytable(L, 1, &c);
    }
    return 1;
}

/* [..] -> [.., deepcopy]. */
static inline void flux_pushdeepcopy(lua_State *L) { lua_pushcfunction(L, flux_deepcopy); }

/* ---------------------------------------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------------------------------------- */

static int flux_panic(lua_State *L) {
    const char *message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error object is not a string";
    fprintf(stderr, "PANIC: unprotected error in call to Lua API (%s)\n", message);
    fflush(stderr);
    return 0; /* Lua aborts */
}

static int flux_setup(lua_State *L) {
    luaL_openlibs(L);
    flux_opencoroutines(L);
    luaL_newmetatable(L, FLUX_BOX_METATABLE); /* [metatable] */
    flux_setboxgc(L);
    lua_pop(L, 1);
    lua_pushboolean(L, 0); /* reserve the traceback slot so storing into it never allocates */
    lua_setfield(L, LUA_REGISTRYINDEX, FLUX_TRACEBACK_KEY);
    return 0;
}

/* A new state with the standard libraries, allocating through `control`; no hook until a call needs one.
 * NULL when memory runs out. */
static inline lua_State *flux_newstate(FluxControl *control) {
    lua_State *L = lua_newstate(flux_alloc, control);
    if (L == NULL) return NULL;
    *(FluxControl **)lua_getextraspace(L) = control; /* new threads copy the main thread's extra space */
    control->state = L;
    control->hook_count = FLUX_HOOK_INTERVAL;
    control->slot = -1;
    lua_atpanic(L, flux_panic);
    lua_pushcfunction(L, flux_setup);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        lua_close(L);
        control->state = NULL;
        return NULL;
    }
    return L;
}

#endif
