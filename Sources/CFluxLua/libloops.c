/*
 * Library functions whose loops run in C, where the count hook never fires: bounded, so that the budget and
 * Ctrl-C stop them as they stop Lua code.
 * - string.rep with nothing to repeat returns "" at once: Lua 5.4.4's loops n times copying nothing, so
 *   string.rep("", math.maxinteger) would never return.
 * - table.move, table.insert, table.remove and table.concat check for a stop every FLUX_LOOP_STEP elements:
 *   moving nils allocates nothing, so table.move({}, 1, math.maxinteger - 1, 2), or table.insert on a table
 *   whose __len says 2^62, would run for ever, out of the memory cap's reach too; concat's values may come
 *   from a C function's __index, which the hook never sees either.
 * - table.sort checks for a stop every FLUX_LOOP_STEP comparisons: its values may come from a C function's
 *   __index and its order from a C function, so sorting a table whose __len says 2^30 ran on beyond reach.
 * - print and io.write write a long text in pieces of FLUX_WRITE_STEP bytes and check for a stop between
 *   them: one string of many megabytes to a terminal that draws slowly took minutes in one fwrite, beyond
 *   Ctrl-C's reach (and a second Ctrl-C meanwhile ended the shell).
 * Each does what the base, io, string and table libraries' do otherwise.
 */
#include <limits.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* How many elements a loop handles between two checks, each counted as an instruction. */
#define FLUX_LOOP_STEP 1024

/* How many bytes print writes between two checks, each counted as an instruction. */
#define FLUX_WRITE_STEP 4096

static void (*volatile output_hook)(void) = NULL;

void flux_setoutputhook(void (*hook)(void)) { output_hook = hook; }

static void flux_beforeoutput(void) {
    void (*hook)(void) = output_hook;
    if (hook != NULL) hook();
}

/* print(...), as lbaselib's: each value through luaL_tolstring, tab-separated, a newline, a flush. */
static int flux_print(lua_State *L) {
    int n = lua_gettop(L);
    flux_beforeoutput();
    for (int i = 1; i <= n; i++) {
        size_t length;
        const char *text = luaL_tolstring(L, i, &length);
        if (i > 1) lua_writestring("\t", 1);
        for (size_t done = 0; done < length; done += FLUX_WRITE_STEP) {
            if (done > 0) flux_checkstop(L, 1);
            lua_writestring(text + done, length - done < FLUX_WRITE_STEP ? length - done : FLUX_WRITE_STEP);
        }
        lua_pop(L, 1);
    }
    lua_writeline();
    return 0;
}

/* io.write(...), upvalue 1 being the library's: called as it is unless a string is longer than a piece; then
 * with one value, or one piece of a long string, at a time, stopping at the first failure. */
static int flux_iowrite(lua_State *L) {
    int n = lua_gettop(L);
    flux_beforeoutput();
    int split = 0;
    for (int i = 1; i <= n; i++) {
        if (lua_type(L, i) != LUA_TNUMBER) luaL_checklstring(L, i, NULL); /* as the library's, by position */
        if (lua_type(L, i) == LUA_TSTRING && lua_rawlen(L, i) > FLUX_WRITE_STEP) split = 1;
    }
    if (!split) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, n, LUA_MULTRET);
        return lua_gettop(L);
    }
    for (int i = 1; i <= n; i++) {
        size_t length = lua_type(L, i) == LUA_TSTRING ? lua_rawlen(L, i) : 0;
        size_t done = 0;
        do {
            if (done > 0) flux_checkstop(L, 1);
            lua_settop(L, n);
            lua_pushvalue(L, lua_upvalueindex(1));
            if (length > 0) {
                const char *text = lua_tostring(L, i);
                lua_pushlstring(L, text + done, length - done < FLUX_WRITE_STEP ? length - done : FLUX_WRITE_STEP);
            } else {
                lua_pushvalue(L, i);
            }
            lua_call(L, 1, LUA_MULTRET);
            if (lua_isnil(L, n + 1)) return lua_gettop(L) - n; /* nil, message, code */
            done += FLUX_WRITE_STEP;
        } while (done < length);
    }
    return lua_gettop(L) - n; /* the file */
}

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

/* What a table function does with its table: reads it, writes it, takes its length. */
enum { FLUX_READS = 1, FLUX_WRITES = 2, FLUX_LENGTH = 4 };

/* Raises unless the value at arg is a table, or has in its metatable the metamethods for `what` (__index,
 * __newindex, __len), as ltablib's checks. */
static void flux_checktable(lua_State *L, int arg, int what) {
    static const char *const names[] = {"__index", "__newindex", "__len"};
    int found = 1, i;
    if (lua_type(L, arg) == LUA_TTABLE) return;
    if (!lua_getmetatable(L, arg)) luaL_checktype(L, arg, LUA_TTABLE);
    for (i = 0; i < 3; i++) {
        if (!(what & (1 << i))) continue;
        lua_pushstring(L, names[i]);
        found &= lua_rawget(L, -2) != LUA_TNIL;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (!found) luaL_checktype(L, arg, LUA_TTABLE);
}

/* #t of the table at 1, checked for `what` and its length. */
static lua_Integer flux_tablelength(lua_State *L, int what) {
    flux_checktable(L, 1, what | FLUX_LENGTH);
    return luaL_len(L, 1);
}

/* table.insert(t, [pos,] value), as ltablib's. */
static int flux_tableinsert(lua_State *L) {
    lua_Integer e = flux_tablelength(L, FLUX_READS | FLUX_WRITES), pos, i;
    e = (lua_Integer)((lua_Unsigned)e + 1u);             /* the first empty element */
    switch (lua_gettop(L)) {
    case 2:
        pos = e;
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        for (i = e; i > pos; i--) {                      /* t[i] = t[i - 1] */
            if ((e - i) % FLUX_LOOP_STEP == FLUX_LOOP_STEP - 1) flux_checkstop(L, FLUX_LOOP_STEP);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

/* table.remove(t [, pos]), as ltablib's. */
static int flux_tableremove(lua_State *L) {
    lua_Integer size = flux_tablelength(L, FLUX_READS | FLUX_WRITES);
    lua_Integer pos = luaL_optinteger(L, 2, size), first;
    if (pos != size) luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
    lua_geti(L, 1, pos);                                 /* the result */
    for (first = pos; pos < size; pos++) {               /* t[pos] = t[pos + 1] */
        if ((pos - first) % FLUX_LOOP_STEP == FLUX_LOOP_STEP - 1) flux_checkstop(L, FLUX_LOOP_STEP);
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

/* [.., buffer's] -> [.., buffer's]: t[i] added to the buffer, as ltablib's concat adds a field. */
static void flux_addfield(lua_State *L, luaL_Buffer *b, lua_Integer i) {
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1)) luaL_error(L, "invalid value (at index %I) in table for 'concat'", (LUAI_UACINT)i);
    luaL_addvalue(b);
}

/* table.concat(t [, sep [, i [, j]]]), as ltablib's. */
static int flux_tableconcat(lua_State *L) {
    luaL_Buffer b;
    lua_Integer last = flux_tablelength(L, FLUX_READS), i, first;
    size_t separator;
    const char *sep = luaL_optlstring(L, 2, "", &separator);
    first = i = luaL_optinteger(L, 3, 1);
    last = luaL_optinteger(L, 4, last);
    luaL_buffinit(L, &b);
    for (; i < last; i++) {
        if ((i - first) % FLUX_LOOP_STEP == FLUX_LOOP_STEP - 1) flux_checkstop(L, FLUX_LOOP_STEP);
        flux_addfield(L, &b, i);
        luaL_addlstring(&b, sep, separator);
    }
    if (i == last) flux_addfield(L, &b, i);
    luaL_pushresult(&b);
    return 1;
}

/* table.move(a1, f, e, t [, a2]), as ltablib's. */
static int flux_tablemove(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int destination = !lua_isnoneornil(L, 5) ? 5 : 1;
    flux_checktable(L, 1, FLUX_READS);
    flux_checktable(L, destination, FLUX_WRITES);
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

/* table.sort: ltablib's quicksort, its comparisons counted towards a check for a stop. */
typedef unsigned int FluxIndex;

/* Intervals this long or longer take a pivot randomized once a partition came out too imbalanced. */
#define FLUX_RANDOM_LIMIT 100u

/* A seed from the clock and the time, as ltablib's l_randomizePivot. */
static unsigned int flux_randompivot(void) {
    clock_t c = clock();
    time_t t = time(NULL);
    unsigned int buffer[(sizeof(c) + sizeof(t)) / sizeof(unsigned int)];
    unsigned int i, seed = 0;
    memcpy(buffer, &c, sizeof(c) / sizeof(unsigned int) * sizeof(unsigned int));
    memcpy(buffer + sizeof(c) / sizeof(unsigned int), &t, sizeof(t) / sizeof(unsigned int) * sizeof(unsigned int));
    for (i = 0; i < sizeof(buffer) / sizeof(buffer[0]); i++) seed += buffer[i];
    return seed;
}

/* [.., x, y] -> [..]: t[i] = y, t[j] = x. */
static void flux_set2(lua_State *L, FluxIndex i, FluxIndex j) {
    lua_seti(L, 1, i);
    lua_seti(L, 1, j);
}

/* Whether the value at a sorts before the one at b (negative indices), by the function at 2 or `<`. */
static int flux_sortless(lua_State *L, int a, int b, unsigned int *steps) {
    int less;
    if (++*steps % FLUX_LOOP_STEP == 0) flux_checkstop(L, FLUX_LOOP_STEP);
    if (lua_isnil(L, 2)) return lua_compare(L, a, b, LUA_OPLT);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, a - 1);                             /* past the function */
    lua_pushvalue(L, b - 2);                             /* past the function and a */
    lua_call(L, 2, 1);
    less = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return less;
}

/* [.., pivot] -> [..]: t[lo..up] partitioned around the pivot, which is also at up - 1; its final index. */
static FluxIndex flux_partition(lua_State *L, FluxIndex lo, FluxIndex up, unsigned int *steps) {
    FluxIndex i = lo, j = up - 1;                        /* a[lo..i] <= pivot <= a[j..up] */
    for (;;) {
        while (lua_geti(L, 1, ++i), flux_sortless(L, -1, -2, steps)) {
            if (i == up - 1) luaL_error(L, "invalid order function for sorting");
            lua_pop(L, 1);
        }
        while (lua_geti(L, 1, --j), flux_sortless(L, -3, -1, steps)) {
            if (j < i) luaL_error(L, "invalid order function for sorting");
            lua_pop(L, 1);
        }
        if (j < i) {
            lua_pop(L, 1);
            flux_set2(L, up - 1, i);                     /* the pivot to its place */
            return i;
        }
        flux_set2(L, i, j);
    }
}

static void flux_auxsort(lua_State *L, FluxIndex lo, FluxIndex up, unsigned int seed, unsigned int *steps) {
    while (lo < up) {                                    /* the larger interval by iteration */
        FluxIndex p, n;
        lua_geti(L, 1, lo);
        lua_geti(L, 1, up);
        if (flux_sortless(L, -1, -2, steps)) flux_set2(L, lo, up);
        else lua_pop(L, 2);
        if (up - lo == 1) break;
        if (up - lo < FLUX_RANDOM_LIMIT || seed == 0) p = (lo + up) / 2;
        else {
            FluxIndex quarter = (up - lo) / 4;
            p = seed % (quarter * 2) + (lo + quarter);
        }
        lua_geti(L, 1, p);
        lua_geti(L, 1, lo);
        if (flux_sortless(L, -2, -1, steps)) flux_set2(L, p, lo);
        else {
            lua_pop(L, 1);
            lua_geti(L, 1, up);
            if (flux_sortless(L, -1, -2, steps)) flux_set2(L, p, up);
            else lua_pop(L, 2);
        }
        if (up - lo == 2) break;
        lua_geti(L, 1, p);                               /* the median, the pivot */
        lua_pushvalue(L, -1);
        lua_geti(L, 1, up - 1);
        flux_set2(L, p, up - 1);
        p = flux_partition(L, lo, up, steps);
        if (p - lo < up - p) {
            flux_auxsort(L, lo, p - 1, seed, steps);
            n = p - lo;
            lo = p + 1;
        } else {
            flux_auxsort(L, p + 1, up, seed, steps);
            n = up - p;
            up = p - 1;
        }
        if ((up - lo) / 128 > n) seed = flux_randompivot();  /* too imbalanced: randomize */
    }
}

/* table.sort(t [, less]), as ltablib's. */
static int flux_tablesort(lua_State *L) {
    lua_Integer n = flux_tablelength(L, FLUX_READS | FLUX_WRITES);
    if (n > 1) {
        unsigned int steps = 0;
        luaL_argcheck(L, n < INT_MAX, 1, "array too big");
        if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
        lua_settop(L, 2);
        flux_auxsort(L, 1, (FluxIndex)n, 0, &steps);
    }
    return 0;
}

/* [.., lib] -> [.., lib]. lib[name] replaced by `f`, given the library's function as its upvalue. */
static void flux_wrapfield(lua_State *L, const char *name, lua_CFunction f) {
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
}

void flux_openlibloops(lua_State *L) {
    lua_pushcfunction(L, flux_print);
    lua_setglobal(L, "print");
    if (lua_getglobal(L, "string") == LUA_TTABLE) flux_wrapfield(L, "rep", flux_strrep);
    lua_pop(L, 1);
    if (lua_getglobal(L, "io") == LUA_TTABLE) flux_wrapfield(L, "write", flux_iowrite);
    lua_pop(L, 1);
    if (lua_getglobal(L, "table") == LUA_TTABLE) {
        static const luaL_Reg functions[] = {
            {"move", flux_tablemove},
            {"insert", flux_tableinsert},
            {"remove", flux_tableremove},
            {"concat", flux_tableconcat},
            {"sort", flux_tablesort},
            {NULL, NULL},
        };
        luaL_setfuncs(L, functions, 0);
    }
    lua_pop(L, 1);
}
