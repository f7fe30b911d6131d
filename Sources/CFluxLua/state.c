/* A state: the allocator with a cap, the standard libraries, and the C API's macros for Swift. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"

int flux_registryindex(void) { return LUA_REGISTRYINDEX; }
void flux_pop(lua_State *L, int n) { lua_pop(L, n); }
void flux_insert(lua_State *L, int idx) { lua_insert(L, idx); }
void flux_remove(lua_State *L, int idx) { lua_remove(L, idx); }
void flux_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
int flux_getmetatable(lua_State *L, const char *tname) { return luaL_getmetatable(L, tname); }

FluxControl *flux_getcontrol(lua_State *L) { return flux_control(L); }

/* Blocks the state freed, by their exact size, each list linked through the blocks themselves: the
 * collector frees in bursts (a sweep step frees many objects at once) that overflow malloc's own small
 * caches, and the objects a dispatch makes (tables, their slots, userdata) come in a few sizes. At most
 * FLUX_POOL_BYTES are kept; they count as freed, not against the cap. */
#define FLUX_POOL_LARGEST 128
/* None under AddressSanitizer: a block kept for reuse would hide a use after its free. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLUX_POOL_NONE 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(FLUX_POOL_NONE)
#define FLUX_POOL_BYTES 0
#else
#define FLUX_POOL_BYTES (256 << 10)
#endif
struct FluxPool {
    void *head[FLUX_POOL_LARGEST + 1];
    size_t bytes;
};

/* Frees every block the pool keeps, and the pool. */
static void flux_drainpool(FluxControl *control) {
    struct FluxPool *pool = control->pool;
    int size;
    if (pool == NULL) return;
    for (size = 0; size <= FLUX_POOL_LARGEST; size++) {
        while (pool->head[size] != NULL) {
            void *block = pool->head[size];
            pool->head[size] = *(void **)block;
            free(block);
        }
    }
    free(pool);
    control->pool = NULL;
}

/* A lua_Alloc that refuses to grow past control->limit while Lua code runs; Lua then collects garbage and
 * retries, and raises "not enough memory" if that does not help. Shrinking never fails, as Lua requires.
 * What Swift allocates is counted too, and checked when it returns to Lua (call.c). */
void *flux_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    FluxControl *control = (FluxControl *)ud;
    struct FluxPool *pool = control->pool;
    size_t old = ptr != NULL ? osize : 0; /* without a block, osize tells the object's type */
    void *block;
    if (nsize == 0) {
        if (ptr == NULL) return NULL;                    /* an empty part of an object: nothing to free */
        if (old >= sizeof(void *) && old <= FLUX_POOL_LARGEST
            && (pool != NULL || (pool = control->pool = calloc(1, sizeof(struct FluxPool))) != NULL)
            && pool->bytes + old <= FLUX_POOL_BYTES) {
            *(void **)ptr = pool->head[old];             /* kept: it holds at least `old` bytes */
            pool->head[old] = ptr;
            pool->bytes += old;
        } else {
            free(ptr);
        }
        control->used -= old;
        return NULL;
    }
    if (control->enforce && control->limit != 0 && nsize > old
        && (control->used >= control->limit || nsize - old > control->limit - control->used))
        return NULL;
    if (ptr == NULL && nsize <= FLUX_POOL_LARGEST && pool != NULL && pool->head[nsize] != NULL) {
        block = pool->head[nsize];
        pool->head[nsize] = *(void **)block;
        pool->bytes -= nsize;
    } else {
        block = ptr != NULL ? realloc(ptr, nsize) : malloc(nsize); /* a new object: malloc's shorter path */
    }
    if (block != NULL) control->used = control->used - old + nsize;
    if (control->torturing && nsize > old) control->torture_work += (long long)control->used; /* torture.c */
    return block;
}

static int flux_panic(lua_State *L) {
    const char *message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error object is not a string";
    fprintf(stderr, "PANIC: unprotected error in call to Lua API (%s)\n", message);
    fflush(stderr);
    return 0; /* Lua aborts */
}

static int flux_setup(lua_State *L) {
    luaL_openlibs(L);
    flux_openhooks(L);
    flux_openviews(L);
    flux_opendrafts(L);
    flux_openfinalizers(L);
    flux_opendebug(L);
    flux_openload(L);
    flux_openlibloops(L);
    flux_openpatterns(L);
    flux_openxpcall(L);
    /* Open files are finalized by Lua with hooks off: a `__gc` a script put in their metatable could
       loop beyond any budget, so the metatable is hidden as the host's own are. */
    luaL_getmetatable(L, LUA_FILEHANDLE);
    flux_protectmetatable(L, "FILE*");
    lua_pop(L, 1);
    luaL_newmetatable(L, FLUX_BOX_METATABLE); /* [metatable] */
    flux_setboxgc(L);
    flux_protectmetatable(L, "Swift function");
    lua_pop(L, 1);
    lua_pushboolean(L, 0); /* reserve the traceback slot so storing into it never allocates */
    lua_setfield(L, LUA_REGISTRYINDEX, FLUX_TRACEBACK_KEY);
    return 0;
}

lua_State *flux_newstate(FluxControl *control) {
    lua_State *L = lua_newstate(flux_alloc, control);
    if (L == NULL) {
        flux_drainpool(control);
        return NULL;
    }
    *(FluxControl **)lua_getextraspace(L) = control; /* new threads copy the main thread's extra space */
    control->state = L;
    control->hook_count = FLUX_HOOK_INTERVAL;
    control->slot = -1;
    lua_atpanic(L, flux_panic);
    if (control->torture) flux_settorture(L); /* from the first allocation on: the libraries' too */
    lua_pushcfunction(L, flux_setup);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        lua_close(L);
        control->state = NULL;
        flux_drainpool(control);
        return NULL;
    }
    return L;
}

/* Finalizers still run in lua_close; a Swift function they call finds the state closed and raises an
 * error instead of reaching an owner that is going. */
void flux_closestate(FluxControl *control) {
    lua_State *L = control->state;
    if (L == NULL) return;
    control->closed = 1;
    control->state = NULL;
    lua_close(L);
    flux_drainpool(control);
}
