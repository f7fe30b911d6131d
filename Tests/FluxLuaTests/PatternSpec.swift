import CLua
import Testing
@testable import FluxLua

extension FluxLuaTests {
    /// string.find, match, gmatch and gsub and table.sort run in C where the count hook never fires: the shell's
    /// own versions end at the budget or an interrupt and otherwise answer exactly as Lua's.
    @Suite("Patterns")
    struct Patterns {
        @Test("a pattern that backtracks exponentially, a huge plain find and a huge table.sort by a C function end at the budget or an interrupt",
              .timeLimit(.minutes(1)))
        func longMatchesStop() throws {
            let vm = Hook.vmWithInterruptTimer()
            let backtracking = [
                "string.find(string.rep('a', 60), string.rep('a-', 30) .. 'b')",
                "string.match(string.rep('a', 60), string.rep('a*', 30) .. 'b')",
                "for _ in string.gmatch(string.rep('a', 60), string.rep('a-', 30) .. 'b') do end",
                "string.gsub(string.rep('a', 60), string.rep('a-', 30) .. 'b', '')",
                "local s = string.rep('a', 60) s:find(string.rep('a?', 30) .. 'b')",
            ]
            for loop in backtracking + [
                "string.find(string.rep('a', 1 << 24), string.rep('a', 1 << 16) .. 'b', 1, true)",
                "table.sort(setmetatable({}, {__len = function() return 1 << 30 end, __index = rawlen}), rawequal)",
            ] {
                let interrupted = try #require(throws: LuaError.self) { try vm.run("host.armInterrupt() \(loop)") }
                #expect(interrupted.kind == .interrupted, "\(loop)")
            }
            vm.instructionBudget = 1_000_000
            for loop in backtracking {
                let stopped = try #require(throws: LuaError.self) { try vm.run(loop) }
                #expect(stopped.kind == .budgetExceeded, "\(loop)")
            }
            #expect(try vm.run("local k, v = ('k=v'):match('(%w)=(%w)') return k, v, string.find('xaab', 'a-b')") == ["k", "v", 2, 4])
        }

        @Test("a gmatch iterator called again after 'pattern too complex' fails the same way instead of crashing")
        func gmatchAfterTooComplex() throws {
            let vm = LuaVM()
            let results = try vm.run("""
            local it = string.gmatch(string.rep("a", 1000000), string.rep("a?", 1000000))
            local ok1, e1 = pcall(it)
            local ok2, e2 = pcall(it)
            return ok1, e1, ok2, e2, string.match("aab", "(a+)b")
            """)
            #expect(results == [false, "pattern too complex", false, "pattern too complex", "aa"])
        }

        @Test("find, match, gmatch, gsub and table.sort answer as Lua's on every case of a large table, errors included")
        func sameAsLua() throws {
            let expected = try Self.plainLua(Self.cases).split(separator: "\n", omittingEmptySubsequences: false)
            let vm = LuaVM()
            let results = try vm.run(Self.cases, chunkName: "cases")
            guard case .string(let text)? = results.first else {
                Issue.record("no results: \(results)")
                return
            }
            let actual = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(actual.count == expected.count)
            #expect(expected.count > 15_000)
            for (mine, lua) in zip(actual, expected) where mine != lua {
                Issue.record("\(mine)\n  Lua: \(lua)")
            }
        }

        /// What `source` returns, run by a plain Lua state with Lua's own libraries.
        static func plainLua(_ source: String) throws -> String {
            let state = try #require(luaL_newstate())
            defer { lua_close(state) }
            luaL_openlibs(state)
            try #require(luaL_loadbufferx(state, source, source.utf8.count, "=cases", nil) == LUA_OK)
            try #require(lua_pcallk(state, 0, 1, 0, 0, nil) == LUA_OK, "\(String(cString: lua_tolstring(state, -1, nil)))")
            return String(cString: try #require(lua_tolstring(state, -1, nil)))
        }

        /// Runs every case through string.find, match, gmatch, gsub and table.sort; one line per case, its
        /// results or its error, bytes outside printable ASCII escaped.
        static let cases = #"""
local out = {}
local function show(v)
  if type(v) == "string" then
    local bytes = {}
    for i = 1, #v do
      local b = v:byte(i)
      bytes[i] = (b >= 32 and b < 127 and b ~= 92) and string.char(b) or ("\\" .. b .. ";")
    end
    return '"' .. table.concat(bytes) .. '"'
  end
  return type(v) == "table" and "table" or tostring(v)
end
local function record(label, ...)
  local r = table.pack(pcall(...))
  local shown = {}
  for i = 1, r.n do shown[i] = show(r[i]) end
  out[#out + 1] = label .. " -> " .. table.concat(shown, ", ")
end
local function collect(s, p, init)
  local it, all = string.gmatch(s, p, init), {}
  for _ = 1, 200 do
    local r = table.pack(it())
    if r[1] == nil then break end
    for i = 1, r.n do r[i] = show(r[i]) end
    all[#all + 1] = "{" .. table.concat(r, ",", 1, r.n) .. "}"
  end
  return table.concat(all, " ")
end
local bytes = {} for i = 0, 255 do bytes[#bytes + 1] = string.char(i) end
local all = table.concat(bytes)
local subjects = {
  "", "a", "hello world", "  key = value  ", "aaa", "abcabcabc", "(foo(bar))baz", "THE (quick) fox",
  "x = 1, y = 22, z = 333", "a\0b\0c", "one two  three", "f(a(b)c)d]e[f", "%d%%a", "\n\t line\r\n", "^$^$",
  "ab12cd34", "\200\201 caf\195\169", all,
}
local patterns = {
  "", ".", "a", "a*", "a+", "a-", "a?", "^a", "a$", "^$", "$", "^", "b", "%a+", "%A+", "%c", "%C+", "%d+", "%D",
  "%g+", "%G", "%l+", "%L+", "%p", "%P+", "%s+", "%S+", "%u+", "%U", "%w+", "%W", "%x+", "%X+", "%%", "%.", "[abc]",
  "[^abc]+", "[a-c]+", "[%a_][%w_]*", "[]]", "[^]]+", "[a-]", "[-a]+", "[%]]", "[a-%%]", "[%d-]+", "[^%s]+",
  "(%w+)", "(%w+)%s*=%s*(%w+)", "()", "()a()", "(a)(b)?", "((a)(b))", "(a*(.)%w(%s*))", "(.)%1", "(%a)(%a)%2%1",
  "%b()", "%b[]", "%bab", "%f[%w]%w+", "%f[%W]", "%f[%a]", "%f[^%z]", "%f[%z]", "%z", ".-b", ".-", "a.-c", "(.-)%s",
  "^(%s*)(.-)(%s*)$", "[%a%d]+$", "x*$", "%$", "^^", "$$", "a-$", "%d-%d", "(h)(e)(l)(l)(o)", "[\0]", "\0",
  "[\128-\255]+", ".?.?.?", "(()())", "[%w%p]-%s", "[a-z][a-z]?[a-z]?", "%x%x?", "[%^%-]", "[z-a]", "^(.)",
}
local errors = {
  "%", "a%", "[a", "[", "[^", "[%", "[a%", "(", "a)", ")", "%1", "(a)%2", "(a%1)", "%f", "%fa", "%b", "%ba",
  "(()", "[]", "[^]", "%0", "(a)%0",
}
for _, s in ipairs(subjects) do
  for _, p in ipairs(patterns) do
    local label = show(s) .. " " .. show(p)
    record("find " .. label, string.find, s, p)
    record("match " .. label, string.match, s, p)
    record("gmatch " .. label, collect, s, p)
    record("gsub " .. label, string.gsub, s, p, "<%0>")
    record("gsub1 " .. label, string.gsub, s, p, "%1", 2)
  end
  for _, p in ipairs(errors) do
    local label = show(s) .. " " .. show(p)
    record("find " .. label, string.find, s, p)
    record("gmatch " .. label, collect, s, p)
    record("gsub " .. label, string.gsub, s, p, "x")
  end
  for _, init in ipairs({0, 1, 2, 3, -1, -2, -3, -100, 5, 100, math.mininteger, math.maxinteger}) do
    for _, p in ipairs({"", "a", "b", "l+", "%s", "^.", "$", "()", "a.", "a%", ".-$"}) do
      local label = show(s) .. " " .. show(p) .. " " .. init
      record("find " .. label, string.find, s, p, init)
      record("plain " .. label, string.find, s, p, init, true)
      record("match " .. label, string.match, s, p, init)
      record("gmatch " .. label, collect, s, p, init)
    end
  end
end
-- replacements
local subject = "hello world from Lua, x = 1"
local replacements = {
  "", "%0", "%%", "[%1]", "%2-%1", "%1%1", "a%", "%x", "%9", "%10", 42, 1.5,
  {hello = "HI", world = false, from = 7, Lua = {}}, {},
  function(a, b) return b and (b .. a) or a:upper() end, function() return nil end, function() return false end,
  function() return {} end, function() return 3 end, function(...) return select("#", ...) .. "" end,
  true, nil, print == nil,
}
for i, r in ipairs(replacements) do
  for _, p in ipairs({"%w+", "(%w+)", "(%w+) (%w+)", "()(%w)", "", "^%w+", "x*", "(o)", "(%w+)(=?)"}) do
    for _, n in ipairs({-1, 0, 1, 2, 100}) do
      record("gsub " .. show(p) .. " #" .. i .. " " .. n, string.gsub, subject, p, r, n)
    end
    record("gsub " .. show(p) .. " #" .. i, string.gsub, subject, p, r)
  end
end
record("gsub none", string.gsub, subject, "%w")
record("gsub nil", string.gsub, subject, "%w", nil)
record("gsub n", string.gsub, subject, "%w", "x", "two")
record("gsub float n", string.gsub, subject, "%w", "x", 1.5)
record("find arg", string.find, nil, "a")
record("find arg2", string.find, "a", {})
record("find init", string.find, "a", "a", "x")
record("match arg", string.match, "a")
record("gmatch arg", string.gmatch, "a")
record("numbers", string.find, 12345, 34)
record("gsub numbers", string.gsub, 1e15, "0", 9)
record("complex", string.match, string.rep("a", 300), string.rep("a?", 300))
record("complex find", string.find, string.rep("a", 300), string.rep("(a?)", 20) .. string.rep("a?", 250))
record("captures", string.match, string.rep("a", 40), string.rep("(a)", 33))
record("32 captures", string.match, string.rep("a", 40), string.rep("(a)", 32))
record("position values", string.gsub, "abc", "()", "%1")
record("position table", string.gsub, "abc", "()", {[1] = "one", [3] = "three"})
record("unfinished", string.gsub, "abc", "(a", "%1")
record("unfinished fn", string.gsub, "abc", "(a", print)
record("method", ("key=val"):find("(%w+)=(%w+)"))
record("method match", pcall, function() return ("k1=v1, k2=v2"):gsub("(%w+)=(%w+)", "%2=%1") end)
record("long", string.find, string.rep("ab", 5000) .. "c", "b(c)")
record("long plain", string.find, string.rep("ab", 5000) .. "c", "abc", 1, true)
record("gmatch anchor", collect, "aaa", "^a")
record("gmatch empty", collect, "abc", "x*")
record("frontier end", string.find, "THE (quick) fox", "%f[%a]%a+%f[%A]", 5)
record("balanced long", string.match, string.rep("(", 1000) .. string.rep(")", 1000), "%b()")
-- sort
local function sorted(t, f)
  table.sort(t, f)
  local s = {} for i = 1, #t do s[i] = show(t[i]) end
  return table.concat(s, ",")
end
local function numbers(n, seed)
  local t, x = {}, seed
  for i = 1, n do x = (x * 1103515245 + 12345) % 2147483648 t[i] = x % 1000 end
  return t
end
for _, n in ipairs({0, 1, 2, 3, 4, 5, 10, 50, 99, 100, 101, 500, 2000}) do
  record("sort " .. n, sorted, numbers(n, n))
  record("sort desc " .. n, sorted, numbers(n, n + 1), function(a, b) return a > b end)
  record("sort strings " .. n, sorted, (function() local t = numbers(n, 7) for i = 1, n do t[i] = tostring(t[i]) end return t end)())
end
for _, n in ipairs({2, 3, 4, 10, 50, 99}) do
  local t = numbers(n, 3)
  record("sort invalid " .. n, sorted, t, function() return true end)
  record("after invalid " .. n, sorted, t)
  record("sort <= " .. n, sorted, numbers(n, 5), function(a, b) return a <= b end)
  record("sort rawequal " .. n, sorted, numbers(n, 9), rawequal)
  record("sort math.max " .. n, sorted, numbers(n, 9), math.max)
end
record("sort mixed", sorted, {3, "a", 1})
record("sort holes", sorted, {3, nil, 1})
record("sort not a table", table.sort, 1)
record("sort bad comparator", table.sort, {2, 1}, 3)
record("sort bad comparator short", table.sort, {1}, 3)
record("sort too big", table.sort, setmetatable({}, {__len = function() return 1 << 31 end}))
record("sort proxy", function()
  local store = {5, 3, 9, 1}
  local proxy = setmetatable({}, {__len = function() return #store end, __index = store, __newindex = store})
  table.sort(proxy)
  return table.concat(store, ",")
end)
record("sort proxy missing __newindex", table.sort, setmetatable({}, {__len = function() return 2 end, __index = {}}))
return table.concat(out, "\n")
"""#
    }
}
