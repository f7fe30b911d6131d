/* The garbage-collection torture mode (FLUX_GC_TORTURE=1): a full collection at every allocation, or as
 * close as Lua 5.4's API allows.
 *
 * An allocator may not collect (lua_gc from inside lua_Alloc would re-enter the collector), so the mode
 * sets the incremental collector's parameters instead:
 *   - pause 0 (lua_gc takes 1, stored as 1 / 4 = 0): a cycle ends with a debt of zero, so the next byte
 *     allocated puts the state in debt, and the next GC check point (luaC_checkGC) runs a step;
 *   - step size 2^63 bytes, past the largest Lua can represent: `incstep` then treats a step as unbounded
 *     and runs it until the collector is back in its pause, that is, a whole cycle — marking, the atomic
 *     phase, clearing weak tables, sweeping and calling every pending finalizer (`__gc`).
 * Lua reaches a GC check point after every allocating operation (a table, closure, string, userdata or
 * concatenation made by the VM or by an API function such as lua_createtable or lua_pushstring) — the same
 * points where ltests' HARDMEMTESTS runs luaC_fullgc. So an object that becomes unreachable is gone, and
 * its finalizer has run, by the end of the next allocating operation: a weak-valued table loses an
 * unreachable entry at the next allocation.
 *
 * Bounded per call: each growing allocation adds the bytes the state holds to `torture_work`, about what
 * the cycle it triggers marks; past FLUX_TORTURE_WORK (4 GiB) in one outermost call from Swift the
 * collector goes back to Lua's normal pace until that call returns (checked by the count hook, which runs
 * while a budget is set, and as each outermost call begins). A runaway script that allocates until the
 * budget or the memory cap stops it would otherwise run for hours. What it cannot do: collect inside an allocation made by the
 * collector itself or by a finalizer (Lua stops the collector while finalizers run), and a script that
 * changes the collector's mode or stops it (`collectgarbage("generational")`, `"stop"`) ends the torture
 * for its state. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

int flux_torturerequested(void) {
    const char *value = getenv("FLUX_GC_TORTURE");
    return value != NULL && value[0] != '\0' && strcmp(value, "0") != 0;
}

void flux_settorture(lua_State *L) {
    FluxControl *control = flux_control(L);
    lua_gc(L, LUA_GCINC, 1, 1000, 63);
    lua_gc(L, LUA_GCRESTART);
    control->torturing = 1;
}

void flux_torturepace(lua_State *L, FluxControl *control, int outermost) {
    if (!control->torture) return;
    if (outermost) {
        control->torture_work = 0;
        if (!control->torturing) flux_settorture(L);
    } else if (control->torturing && control->torture_work > FLUX_TORTURE_WORK) {
        lua_gc(L, LUA_GCINC, 200, 100, 13); /* Lua's defaults (LUAI_GCPAUSE, LUAI_GCMUL, LUAI_GCSTEPSIZE) */
        control->torturing = 0;
    }
}
