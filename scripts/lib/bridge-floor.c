/*
 * How low a Lua-to-C store bridge can go: the floor `scripts/bench --instructions` prints beside workloads
 * 2-4. A stand-alone program against the same liblua5.4, with no Swift, no undo and no checks, so that a
 * figure of flux-bench can be read against what the crossing alone costs.
 *
 *   bridge-floor WORKLOAD N   runs N dispatches of one workload and prints what the subscriber last read:
 *   redux     workload 3's pure-Lua Redux store, the same source
 *   call      a Lua loop calling an empty C function with the action's name
 *   reuse     a C dispatch: bumps a C counter and calls the Lua subscriber under lua_pcall with one
 *             reused userdata whose C __index reads the counter
 *   snapshot  the same with a new userdata per change (a state a kept view can still read)
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct View { long long count; } View;

static long long counter = 0;
static int subscriber = LUA_NOREF, reused = LUA_NOREF, snapshots = 0;

static int view_index(lua_State *L) {
    lua_pushinteger(L, ((View *)lua_touserdata(L, 1))->count);
    return 1;
}

static int dispatch(lua_State *L) {
    View *view;
    counter++;
    lua_rawgeti(L, LUA_REGISTRYINDEX, subscriber);
    if (snapshots) {
        view = (View *)lua_newuserdatauv(L, sizeof(View), 0);
        luaL_setmetatable(L, "view");
    } else {
        lua_rawgeti(L, LUA_REGISTRYINDEX, reused);
        view = (View *)lua_touserdata(L, -1);
    }
    view->count = counter;
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) return lua_error(L);
    return 0;
}

static int subscribe(lua_State *L) {
    lua_pushvalue(L, 1);
    subscriber = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

static int nothing(lua_State *L) {
    (void)L;
    return 0;
}

static const char *redux =
    "local function create_store(reducer, state)\n"
    "  local listeners = {}\n"
    "  local store = {}\n"
    "  function store.get_state() return state end\n"
    "  function store.subscribe(listener) listeners[#listeners + 1] = listener end\n"
    "  function store.dispatch(action)\n"
    "    state = reducer(state, action)\n"
    "    for i = 1, #listeners do listeners[i](state) end\n"
    "  end\n"
    "  return store\n"
    "end\n"
    "local function reducer(s, action)\n"
    "  if action.type == 'bench.increment' then return {count = s.count + 1, items = s.items} end\n"
    "  return s\n"
    "end\n"
    "local store = create_store(reducer, {count = 0, items = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'}})\n"
    "local seen = 0\n"
    "store.subscribe(function(state) seen = state.count end)\n"
    "local increment = {type = 'bench.increment'}\n"
    "return function(n) for i = 1, n do store.dispatch(increment) end return seen end\n";

static const char *bridge =
    "local seen = 0\n"
    "subscribe(function(state) seen = state.count end)\n"
    "return function(n) for i = 1, n do dispatch('bench.increment') end return seen end\n";

static const char *call =
    "return function(n) for i = 1, n do nothing('bench.increment') end return n end\n";

int main(int argc, char **argv) {
    const char *workload = argc == 3 ? argv[1] : "";
    const char *source = strcmp(workload, "redux") == 0 ? redux
        : strcmp(workload, "call") == 0 ? call
        : strcmp(workload, "reuse") == 0 || strcmp(workload, "snapshot") == 0 ? bridge : NULL;
    lua_State *L;
    if (source == NULL) {
        fprintf(stderr, "usage: bridge-floor redux|call|reuse|snapshot N\n");
        return 64;
    }
    snapshots = strcmp(workload, "snapshot") == 0;
    L = luaL_newstate();
    luaL_openlibs(L);
    luaL_newmetatable(L, "view");
    lua_pushcfunction(L, view_index);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    lua_newuserdatauv(L, sizeof(View), 0);
    luaL_setmetatable(L, "view");
    reused = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_register(L, "dispatch", dispatch);
    lua_register(L, "subscribe", subscribe);
    lua_register(L, "nothing", nothing);
    if (luaL_loadstring(L, source) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "bridge-floor: %s\n", lua_tostring(L, -1));
        return 1;
    }
    lua_pushinteger(L, atoll(argv[2]));
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "bridge-floor: %s\n", lua_tostring(L, -1));
        return 1;
    }
    printf("%lld\n", (long long)lua_tointeger(L, -1));
    lua_close(L);
    return 0;
}
