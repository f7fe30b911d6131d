/* What the .c files of CFluxLua share and Swift does not see. */
#ifndef FLUX_CFLUXLUA_INTERNAL_H
#define FLUX_CFLUXLUA_INTERNAL_H

#include "CFluxLua.h"

/* The block of the state L belongs to (flux_getcontrol), inlined for the functions a dispatch calls. */
static inline FluxControl *flux_control(lua_State *L) { return *(FluxControl **)lua_getextraspace(L); }

/* Registry names. */
#define FLUX_BOX_METATABLE "flux.SwiftFunction"
#define FLUX_TRACEBACK_KEY "flux.traceback"
#define FLUX_PROXY_METATABLE "flux.state"

/* The allocator every state uses: refuses to grow past control->limit while Lua code runs (state.c). */
void *flux_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* Replaces coroutine.resume/wrap and debug.sethook/gethook with versions that keep the host's hook
 * (hook.c). */
void flux_openhooks(lua_State *L);

/* The torture's pace (torture.c): at the start of each outermost call (`outermost`) it is set again and
 * its work counted from zero; otherwise it goes back to the normal pace once the work passes its bound. */
void flux_torturepace(lua_State *L, FluxControl *control, int outermost);

/* Called around every protected call (hook.c). */
void flux_callbegin(lua_State *L, FluxControl *control, lua_State **outer);
void flux_callend(lua_State *L, lua_State *outer, FluxControl *control);

/* Runs the coroutine co with a budget of its own, the cap enforced and interrupts reaching it (hook.c). */
int flux_resumebounded(lua_State *L, lua_State *co, int nargs, long long budget, int *nres);

/* Replaces setmetatable and debug.setmetatable so that scripts' finalizers run bounded (finalizer.c). */
void flux_openfinalizers(lua_State *L);
/* Replaces debug.getmetatable, debug.getregistry and debug.setupvalue with versions that keep the host's
 * objects out of reach (debuglib.c). */
void flux_opendebug(lua_State *L);

/* Replaces load, loadfile, dofile and require's searcher of Lua files with versions that load source text
 * only, and package.loadlib with one that opens Lua modules' entry points only (load.c). */
void flux_openload(lua_State *L);

/* Replaces print, io.write, string.rep and table.move, insert, remove, concat and sort with versions whose
 * loops the budget and interrupts reach (libloops.c). */
void flux_openlibloops(lua_State *L);
/* Replaces string.find, match, gmatch and gsub with a matcher the budget and interrupts reach (patterns.c). */
void flux_openpatterns(lua_State *L);
/* Charges `work` instructions to the call running, and raises as the count hook does when the call is being
 * stopped (hook.c). */
void flux_checkstop(lua_State *L, long long work);

/* luaL_traceback's text, the search for each function's global name bounded (traceback.c). */
void flux_traceback(lua_State *L, lua_State *L1, const char *msg, int level);

/* Replaces xpcall with one whose message handler never runs where hooks are off (xpcall.c). */
void flux_openxpcall(lua_State *L);
/* debug.traceback, as the host gives it (debuglib.c). */
int flux_debugtraceback(lua_State *L);

/* Sets up the view metatable and its cache (tableview.c). */
void flux_openviews(lua_State *L);

/* Sets up the drafts' bookkeeping (its userdata, the draft metatable, the marks of published tables) and
 * the invoke and freeze functions (draft.c). */
void flux_opendrafts(lua_State *L);
/* Whether every key of the table at absolute index b is a key of the table at absolute index a (draft.c). */
int flux_keysin(lua_State *L, int b, int a);
/* Whether the frozen values at a and b hold the same: tables compared key by key, *left pairs at most (counted
 * down; past them, not the same) (draft.c). */
int flux_sameshape(lua_State *L, int a, int b, int depth, long long *left);
/* Whether the frozen state at `now` holds the same as the state at `old` (another table); when it does
 * not, *bytes is the old state's undo cost beside it, as flux_tablecost counts with FLUX_COST_BUDGET
 * (cost.c). */
int flux_samestate(lua_State *L, int old, int now, long long *bytes);

/* The undo cost of a state of `pairs` pairs beside one that holds the same tables (cost.c). */
long long flux_flatcost(long long pairs);
/* A new state compared with the old one pair by pair as it is walked: whether all pairs were alike, how many
 * of the old state's keys it has, and the old state's undo cost beside it so far (cost.c). */
typedef struct {
    int same;
    long long matched;
    long long pairs;   /* what is left of FLUX_COST_BUDGET */
    long long bytes;
    long long left;    /* what is left of the pairs flux_sameshape may compare (FLUX_COST_BUDGET) */
} FluxCompare;
void flux_comparebegin(FluxCompare *c);
/* [.., key, value] of the new state: compares the pair with the old state's at absolute index `old`. */
void flux_comparepair(lua_State *L, int old, FluxCompare *c);

#endif
