/*
 * Lua's pattern matching, for string.find, string.match, string.gmatch and string.gsub, with a check for a stop
 * every FLUX_MATCH_STEP steps of the matcher: a pattern such as string.rep("a-", 30) .. "b" backtracks for an
 * exponentially long time in C, where the count hook never fires, so neither the budget nor Ctrl-C stopped it.
 * The matching, the results and the errors are lstrlib's (Lua 5.4).
 */
#include <ctype.h>
#include <string.h>

#include "internal.h"

/* Steps of the matcher (calls of flux_match, candidates of a plain search) between two checks for a stop,
 * each counted as an instruction. */
#define FLUX_MATCH_STEP 4096

/* How deep the matcher may recurse before "pattern too complex", as lstrlib's MAXCCALLS. */
#define FLUX_MATCH_DEPTH 200

/* Captures a pattern may have, as lstrlib's LUA_MAXCAPTURES. */
#define FLUX_MAXCAPTURES 32

#define FLUX_ESCAPE '%'
#define FLUX_SPECIALS "^$*+?.([%-"

/* A capture's length while it is open, and the length of a position capture. */
#define FLUX_CAPTURE_OPEN (-1)
#define FLUX_CAPTURE_POSITION (-2)

#define uchar(c) ((unsigned char)(c))

typedef struct FluxMatch {
    const char *src_init;                                /* the subject */
    const char *src_end;                                 /* its end (a '\0') */
    const char *p_end;                                   /* the pattern's end (a '\0') */
    lua_State *L;
    int depth;                                           /* recursions left */
    int countdown;                                       /* steps left before the next check for a stop */
    unsigned char level;                                 /* captures, open or closed */
    struct {
        const char *init;
        ptrdiff_t len;
    } capture[FLUX_MAXCAPTURES];
} FluxMatch;

static const char *flux_match(FluxMatch *ms, const char *s, const char *p);

/* Counts a step; every FLUX_MATCH_STEP, raises if the call is being stopped. */
static void flux_matchstep(FluxMatch *ms) {
    if (--ms->countdown == 0) {
        ms->countdown = FLUX_MATCH_STEP;
        flux_checkstop(ms->L, FLUX_MATCH_STEP);
    }
}

/* The index of the capture %l refers to (l a digit '1'..'9'), raising unless it is closed. */
static int flux_checkcapture(FluxMatch *ms, int l) {
    l -= '1';
    if (l < 0 || l >= ms->level || ms->capture[l].len == FLUX_CAPTURE_OPEN)
        return luaL_error(ms->L, "invalid capture index %%%d", l + 1);
    return l;
}

/* The innermost open capture, which a ')' closes. */
static int flux_capturetoclose(FluxMatch *ms) {
    int level = ms->level;
    for (level--; level >= 0; level--)
        if (ms->capture[level].len == FLUX_CAPTURE_OPEN) return level;
    return luaL_error(ms->L, "invalid pattern capture");
}

/* Past the single-character class at p. */
static const char *flux_classend(FluxMatch *ms, const char *p) {
    switch (*p++) {
    case FLUX_ESCAPE:
        if (p == ms->p_end) luaL_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    case '[':
        if (*p == '^') p++;
        do {                                             /* up to the ']' */
            if (p == ms->p_end) luaL_error(ms->L, "malformed pattern (missing ']')");
            if (*(p++) == FLUX_ESCAPE && p < ms->p_end) p++; /* an escape, such as '%]' */
        } while (*p != ']');
        return p + 1;
    default:
        return p;
    }
}

/* Whether c is in the class %cl. */
static int flux_matchclass(int c, int cl) {
    int res;
    switch (tolower(cl)) {
    case 'a': res = isalpha(c); break;
    case 'c': res = iscntrl(c); break;
    case 'd': res = isdigit(c); break;
    case 'g': res = isgraph(c); break;
    case 'l': res = islower(c); break;
    case 'p': res = ispunct(c); break;
    case 's': res = isspace(c); break;
    case 'u': res = isupper(c); break;
    case 'w': res = isalnum(c); break;
    case 'x': res = isxdigit(c); break;
    case 'z': res = (c == 0); break;                     /* deprecated, kept as Lua keeps it */
    default: return cl == c;
    }
    if (isupper(cl)) res = !res;                         /* %A, %D, ...: the complement */
    return res;
}

/* Whether c is in the set [..] from p to its ']' at ec. */
static int flux_matchset(int c, const char *p, const char *ec) {
    int sig = 1;
    if (*(p + 1) == '^') {
        sig = 0;
        p++;
    }
    while (++p < ec) {
        if (*p == FLUX_ESCAPE) {
            p++;
            if (flux_matchclass(c, uchar(*p))) return sig;
        } else if (*(p + 1) == '-' && p + 2 < ec) {
            p += 2;
            if (uchar(*(p - 2)) <= c && c <= uchar(*p)) return sig;
        } else if (uchar(*p) == c) {
            return sig;
        }
    }
    return !sig;
}

/* Whether the character at s is in the class from p to ep. */
static int flux_singlematch(FluxMatch *ms, const char *s, const char *p, const char *ep) {
    if (s >= ms->src_end) return 0;
    switch (*p) {
    case '.': return 1;
    case FLUX_ESCAPE: return flux_matchclass(uchar(*s), uchar(*(p + 1)));
    case '[': return flux_matchset(uchar(*s), p, ep - 1);
    default: return uchar(*p) == uchar(*s);
    }
}

/* %bxy at p: past the balanced string at s, or NULL. */
static const char *flux_matchbalance(FluxMatch *ms, const char *s, const char *p) {
    int open, close, count = 1;
    if (p >= ms->p_end - 1) luaL_error(ms->L, "malformed pattern (missing arguments to '%%b')");
    if (*s != *p) return NULL;
    open = *p;
    close = *(p + 1);
    while (++s < ms->src_end) {
        if (*s == close) {
            if (--count == 0) return s + 1;
        } else if (*s == open) {
            count++;
        }
    }
    return NULL;                                         /* out of balance at the end */
}

/* The class at p repeated as often as it matches, then as few times as the rest of the pattern needs. */
static const char *flux_maxexpand(FluxMatch *ms, const char *s, const char *p, const char *ep) {
    ptrdiff_t i = 0;
    while (flux_singlematch(ms, s + i, p, ep)) i++;
    for (; i >= 0; i--) {
        const char *res = flux_match(ms, s + i, ep + 1);
        if (res) return res;
    }
    return NULL;
}

/* The class at p repeated as few times as the rest of the pattern needs. */
static const char *flux_minexpand(FluxMatch *ms, const char *s, const char *p, const char *ep) {
    for (;;) {
        const char *res = flux_match(ms, s, ep + 1);
        if (res != NULL) return res;
        if (!flux_singlematch(ms, s, p, ep)) return NULL;
        s++;
    }
}

static const char *flux_startcapture(FluxMatch *ms, const char *s, const char *p, int what) {
    const char *res;
    int level = ms->level;
    if (level >= FLUX_MAXCAPTURES) luaL_error(ms->L, "too many captures");
    ms->capture[level].init = s;
    ms->capture[level].len = what;
    ms->level = level + 1;
    if ((res = flux_match(ms, s, p)) == NULL) ms->level--; /* failed: undone */
    return res;
}

static const char *flux_endcapture(FluxMatch *ms, const char *s, const char *p) {
    int l = flux_capturetoclose(ms);
    const char *res;
    ms->capture[l].len = s - ms->capture[l].init;
    if ((res = flux_match(ms, s, p)) == NULL) ms->capture[l].len = FLUX_CAPTURE_OPEN; /* failed: undone */
    return res;
}

/* %1..%9: past the capture's text at s, or NULL. */
static const char *flux_matchcapture(FluxMatch *ms, const char *s, int l) {
    size_t len;
    l = flux_checkcapture(ms, l);
    len = ms->capture[l].len;
    if ((size_t)(ms->src_end - s) >= len && memcmp(ms->capture[l].init, s, len) == 0) return s + len;
    return NULL;
}

/* Past what the pattern at p matches at s, or NULL. */
static const char *flux_match(FluxMatch *ms, const char *s, const char *p) {
    if (ms->depth-- == 0) luaL_error(ms->L, "pattern too complex");
    flux_matchstep(ms);
init:                                                    /* tail calls as jumps */
    if (p != ms->p_end) {
        switch (*p) {
        case '(':
            if (*(p + 1) == ')') s = flux_startcapture(ms, s, p + 2, FLUX_CAPTURE_POSITION);
            else s = flux_startcapture(ms, s, p + 1, FLUX_CAPTURE_OPEN);
            break;
        case ')':
            s = flux_endcapture(ms, s, p + 1);
            break;
        case '$':
            if (p + 1 != ms->p_end) goto single;         /* not the last: an ordinary character */
            s = (s == ms->src_end) ? s : NULL;
            break;
        case FLUX_ESCAPE:
            switch (*(p + 1)) {
            case 'b':
                s = flux_matchbalance(ms, s, p + 2);
                if (s != NULL) {
                    p += 4;
                    goto init;
                }
                break;
            case 'f': {
                const char *ep;
                char previous;
                p += 2;
                if (*p != '[') luaL_error(ms->L, "missing '[' after '%%f' in pattern");
                ep = flux_classend(ms, p);
                previous = (s == ms->src_init) ? '\0' : *(s - 1);
                if (!flux_matchset(uchar(previous), p, ep - 1) && flux_matchset(uchar(*s), p, ep - 1)) {
                    p = ep;
                    goto init;
                }
                s = NULL;
                break;
            }
            case '0': case '1': case '2': case '3': case '4':
            case '5': case '6': case '7': case '8': case '9':
                s = flux_matchcapture(ms, s, uchar(*(p + 1)));
                if (s != NULL) {
                    p += 2;
                    goto init;
                }
                break;
            default:
                goto single;
            }
            break;
        default:
        single: {                                        /* a class and its optional quantifier */
            const char *ep = flux_classend(ms, p);
            if (!flux_singlematch(ms, s, p, ep)) {
                if (*ep == '*' || *ep == '?' || *ep == '-') { /* none is enough */
                    p = ep + 1;
                    goto init;
                }
                s = NULL;
            } else {
                switch (*ep) {
                case '?': {
                    const char *res = flux_match(ms, s + 1, ep + 1);
                    if (res != NULL) {
                        s = res;
                    } else {
                        p = ep + 1;
                        goto init;
                    }
                    break;
                }
                case '+':
                    s++;                                 /* one already matched */
                    /* fall through */
                case '*':
                    s = flux_maxexpand(ms, s, p, ep);
                    break;
                case '-':
                    s = flux_minexpand(ms, s, p, ep);
                    break;
                default:
                    s++;
                    p = ep;
                    goto init;
                }
            }
            break;
        }
        }
    }
    ms->depth++;
    return s;
}

/* s2 (l2 bytes) in s1 (l1 bytes), or NULL; a step counted per candidate. */
static const char *flux_find(FluxMatch *ms, const char *s1, size_t l1, const char *s2, size_t l2) {
    const char *init;
    unsigned int candidates = 0;                         /* a local count: this loop is the fast path */
    if (l2 == 0) return s1;
    if (l2 > l1) return NULL;
    l2--;                                                /* the first character memchr checks */
    l1 = l1 - l2;
    while (l1 > 0 && (init = (const char *)memchr(s1, *s2, l1)) != NULL) {
        if (++candidates % FLUX_MATCH_STEP == 0) flux_checkstop(ms->L, FLUX_MATCH_STEP);
        init++;
        if (memcmp(init, s2 + 1, l2) == 0) return init - 1;
        l1 -= init - s1;
        s1 = init;
    }
    return NULL;
}

/* Capture i's length with *cap its text; a position capture's is FLUX_CAPTURE_POSITION, pushed instead.
 * Capture 0 of a pattern without captures is the whole match, s to e. */
static ptrdiff_t flux_getcapture(FluxMatch *ms, int i, const char *s, const char *e, const char **cap) {
    if (i >= ms->level) {
        if (i != 0) luaL_error(ms->L, "invalid capture index %%%d", i + 1);
        *cap = s;
        return e - s;
    } else {
        ptrdiff_t len = ms->capture[i].len;
        *cap = ms->capture[i].init;
        if (len == FLUX_CAPTURE_OPEN) luaL_error(ms->L, "unfinished capture");
        else if (len == FLUX_CAPTURE_POSITION) lua_pushinteger(ms->L, (ms->capture[i].init - ms->src_init) + 1);
        return len;
    }
}

static void flux_pushcapture(FluxMatch *ms, int i, const char *s, const char *e) {
    const char *cap;
    ptrdiff_t len = flux_getcapture(ms, i, s, e, &cap);
    if (len != FLUX_CAPTURE_POSITION) lua_pushlstring(ms->L, cap, len);
}

/* Pushes the captures (the whole match, s to e, if there are none and s is given); how many. */
static int flux_pushcaptures(FluxMatch *ms, const char *s, const char *e) {
    int i, levels = (ms->level == 0 && s) ? 1 : ms->level;
    luaL_checkstack(ms->L, levels, "too many captures");
    for (i = 0; i < levels; i++) flux_pushcapture(ms, i, s, e);
    return levels;
}

/* Whether the pattern has none of the special characters, '\0's included. */
static int flux_nospecials(const char *p, size_t l) {
    size_t upto = 0;
    do {
        if (strpbrk(p + upto, FLUX_SPECIALS)) return 0;
        upto += strlen(p + upto) + 1;
    } while (upto <= l);
    return 1;
}

static void flux_prepare(FluxMatch *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
    ms->L = L;
    ms->depth = FLUX_MATCH_DEPTH;
    ms->countdown = FLUX_MATCH_STEP;
    ms->src_init = s;
    ms->src_end = s + ls;
    ms->p_end = p + lp;
}

/* Before each match at a new position: no captures, and the whole depth again. A match that raised ("pattern
 * too complex", a stop) left the depth it had reached, and gmatch's state outlives the error: counted on from
 * there, a depth past 0 would never be "too complex" again and the next call would recurse until the C stack
 * overflowed. */
static void flux_reprepare(FluxMatch *ms) {
    ms->level = 0;
    ms->depth = FLUX_MATCH_DEPTH;
}

/* A string function's relative position: negative from the end, clipped to [1, ..]. */
static size_t flux_position(lua_Integer pos, size_t len) {
    if (pos > 0) return (size_t)pos;
    if (pos == 0) return 1;
    if (pos < -(lua_Integer)len) return 1;
    return len + (size_t)pos + 1;
}

/* string.find and string.match. */
static int flux_findaux(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = flux_position(luaL_optinteger(L, 3, 1), ls) - 1;
    FluxMatch ms;
    if (init > ls) {                                     /* starts after the end: no match */
        luaL_pushfail(L);
        return 1;
    }
    flux_prepare(&ms, L, s, ls, p, lp);
    if (find && (lua_toboolean(L, 4) || flux_nospecials(p, lp))) {
        const char *s2 = flux_find(&ms, s + init, ls - init, p, lp);
        if (s2) {
            lua_pushinteger(L, (s2 - s) + 1);
            lua_pushinteger(L, (s2 - s) + lp);
            return 2;
        }
    } else {
        const char *s1 = s + init;
        int anchor = (*p == '^');
        if (anchor) {
            p++;
            lp--;
            ms.p_end = p + lp;
        }
        do {
            const char *res;
            flux_reprepare(&ms);
            if ((res = flux_match(&ms, s1, p)) != NULL) {
                if (find) {
                    lua_pushinteger(L, (s1 - s) + 1);
                    lua_pushinteger(L, res - s);
                    return flux_pushcaptures(&ms, NULL, 0) + 2;
                }
                return flux_pushcaptures(&ms, s1, res);
            }
        } while (s1++ < ms.src_end && !anchor);
    }
    luaL_pushfail(L);
    return 1;
}

static int flux_strfind(lua_State *L) { return flux_findaux(L, 1); }

static int flux_strmatch(lua_State *L) { return flux_findaux(L, 0); }

/* gmatch's iterator state, its upvalue 3. */
typedef struct FluxGMatch {
    const char *src;                                     /* where the next search starts */
    const char *p;
    const char *lastmatch;                               /* the end of the last match: not matched empty again */
    FluxMatch ms;
} FluxGMatch;

static int flux_gmatchnext(lua_State *L) {
    FluxGMatch *gm = (FluxGMatch *)lua_touserdata(L, lua_upvalueindex(3));
    const char *src;
    gm->ms.L = L;
    for (src = gm->src; src <= gm->ms.src_end; src++) {
        const char *e;
        flux_reprepare(&gm->ms);
        if ((e = flux_match(&gm->ms, src, gm->p)) != NULL && e != gm->lastmatch) {
            gm->src = gm->lastmatch = e;
            return flux_pushcaptures(&gm->ms, src, e);
        }
    }
    return 0;
}

/* string.gmatch(s, pattern [, init]). */
static int flux_strgmatch(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = flux_position(luaL_optinteger(L, 3, 1), ls) - 1;
    FluxGMatch *gm;
    lua_settop(L, 2);                                    /* the strings kept as upvalues */
    gm = (FluxGMatch *)lua_newuserdatauv(L, sizeof(FluxGMatch), 0);
    if (init > ls) init = ls + 1;                        /* after the end, without overflowing */
    flux_prepare(&gm->ms, L, s, ls, p, lp);
    gm->src = s + init;
    gm->p = p;
    gm->lastmatch = NULL;
    lua_pushcclosure(L, flux_gmatchnext, 3);
    return 1;
}

/* A string replacement, with %0..%9 and %%, added to b. */
static void flux_addstring(FluxMatch *ms, luaL_Buffer *b, const char *s, const char *e) {
    size_t l;
    lua_State *L = ms->L;
    const char *news = lua_tolstring(L, 3, &l);
    const char *p;
    while ((p = (const char *)memchr(news, FLUX_ESCAPE, l)) != NULL) {
        luaL_addlstring(b, news, p - news);
        p++;
        if (*p == FLUX_ESCAPE) {
            luaL_addchar(b, *p);
        } else if (*p == '0') {
            luaL_addlstring(b, s, e - s);
        } else if (isdigit(uchar(*p))) {
            const char *cap;
            ptrdiff_t len = flux_getcapture(ms, *p - '1', s, e, &cap);
            if (len == FLUX_CAPTURE_POSITION) luaL_addvalue(b);
            else luaL_addlstring(b, cap, len);
        } else {
            luaL_error(L, "invalid use of '%c' in replacement string", FLUX_ESCAPE);
        }
        l -= p + 1 - news;
        news = p + 1;
    }
    luaL_addlstring(b, news, l);
}

/* The replacement of the match s to e added to b, by the replacement's type tr; whether it changed the text. */
static int flux_addvalue(FluxMatch *ms, luaL_Buffer *b, const char *s, const char *e, int tr) {
    lua_State *L = ms->L;
    switch (tr) {
    case LUA_TFUNCTION: {
        int n;
        lua_pushvalue(L, 3);
        n = flux_pushcaptures(ms, s, e);
        lua_call(L, n, 1);
        break;
    }
    case LUA_TTABLE:
        flux_pushcapture(ms, 0, s, e);
        lua_gettable(L, 3);
        break;
    default:                                             /* a number or a string */
        flux_addstring(ms, b, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {                         /* nil or false: the match kept */
        lua_pop(L, 1);
        luaL_addlstring(b, s, e - s);
        return 0;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

/* string.gsub(s, pattern, replacement [, n]). */
static int flux_strgsub(lua_State *L) {
    size_t srcl, lp;
    const char *src = luaL_checklstring(L, 1, &srcl);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *lastmatch = NULL;
    int tr = lua_type(L, 3);
    lua_Integer max_s = luaL_optinteger(L, 4, srcl + 1);
    int anchor = (*p == '^');
    lua_Integer n = 0;
    int changed = 0;
    FluxMatch ms;
    luaL_Buffer b;
    luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                     "string/function/table");
    luaL_buffinit(L, &b);
    if (anchor) {
        p++;
        lp--;
    }
    flux_prepare(&ms, L, src, srcl, p, lp);
    while (n < max_s) {
        const char *e;
        flux_reprepare(&ms);
        if ((e = flux_match(&ms, src, p)) != NULL && e != lastmatch) {
            n++;
            changed = flux_addvalue(&ms, &b, src, e, tr) | changed;
            src = lastmatch = e;
        } else if (src < ms.src_end) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchor) break;
    }
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, src, ms.src_end - src);
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

void flux_openpatterns(lua_State *L) {
    if (lua_getglobal(L, "string") == LUA_TTABLE) {
        static const luaL_Reg functions[] = {
            {"find", flux_strfind},
            {"match", flux_strmatch},
            {"gmatch", flux_strgmatch},
            {"gsub", flux_strgsub},
            {NULL, NULL},
        };
        luaL_setfuncs(L, functions, 0);
    }
    lua_pop(L, 1);
}
