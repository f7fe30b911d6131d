/*
 * Library functions whose loops run in C, where the count hook never fires: bounded, so that the budget and
 * Ctrl-C stop them as they stop Lua code.
 * - string.rep with nothing to repeat returns "" at once: Lua 5.4.4's loops n times copying nothing, so
 *   string.rep("", math.maxinteger) would never return.
 * - table.move checks for a stop every FLUX_LOOP_STEP elements: moving nils allocates nothing, so
 *   table.move({}, 1, math.maxinteger - 1, 2) would run for ever, out of the memory cap's reach too.
 * Each does what the string and table libraries' do otherwise.
 */
#include "internal.h"

/* How many elements a loop handles between two checks, each counted as an instruction. */
#define FLUX_LOOP_STEP 1024

/* string.rep(s, n [, sep]), upvalue 1 being the library's. */
static int flux_strrep(lua_State *L) {
    size_t length, separator;
    int n = lua_gettop(L);
    luaL_checklstring(L, 1, &length);
    luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &separator);
    if (length == 0 && separator == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, 1);
    return 1;
}

/* Raises unless the value at arg is a table, or has in its metatable the metamethod `name` (table.move reads
 * through __index and writes through __newindex), as ltablib's checks. */
static void flux_checktable(lua_State *L, int arg, const char *name) {
    int found = 0;
    if (lua_type(L, arg) == LUA_TTABLE) return;
    if (lua_getmetatable(L, arg)) {
        lua_pushstring(L, name);
        found = lua_rawget(L, -2) != LUA_TNIL;
        lua_pop(L, 2);
    }
    if (!found) luaL_checktype(L, arg, LUA_TTABLE);
}

/* table.move(a1, f, e, t [, a2]), as ltablib's. */
static int flux_tablemove(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int destination = !lua_isnoneornil(L, 5) ? 5 : 1;
    flux_checktable(L, 1, "__index");
    flux_checktable(L, destination, "__newindex");
    if (e >= f) {
        lua_Integer n, i;
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        if (t > e || t <= f || (destination != 1 && !lua_compare(L, 1, destination, LUA_OPEQ))) {
            for (i = 0; i < n; i++) {
                if (i % FLUX_LOOP_STEP == FLUX_LOOP_STEP - 1) flux_checkstop(L, FLUX_LOOP_STEP);
                lua_geti(L, 1, f + i);
                lua_seti(L, destination, t + i);
            }
        } else {                                         /* overlapping, the destination above: from the end */
            for (i = n - 1; i >= 0; i--) {
                if (i % FLUX_LOOP_STEP == 0 && i != n - 1) flux_checkstop(L, FLUX_LOOP_STEP);
                lua_geti(L, 1, f + i);
                lua_seti(L, destination, t + i);
            }
        }
    }
    lua_pushvalue(L, destination);
    return 1;
}

/* [.., lib] -> [.., lib]. lib[name] replaced by `f`, given the library's function as its upvalue. */
static void flux_wrapfield(lua_State *L, const char *name, lua_CFunction f) {
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
}

void flux_openlibloops(lua_State *L) {
    if (lua_getglobal(L, "string") == LUA_TTABLE) flux_wrapfield(L, "rep", flux_strrep);
    lua_pop(L, 1);
    if (lua_getglobal(L, "table") == LUA_TTABLE) {
        lua_pushcfunction(L, flux_tablemove);
        lua_setfield(L, -2, "move");
    }
    lua_pop(L, 1);
}
