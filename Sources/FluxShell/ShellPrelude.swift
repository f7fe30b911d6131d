import FluxLua

/// The shell's part written in Lua: how values print, what Tab offers for a Lua name, and the `expect`
/// and `expect_error` globals scripts assert with.
///
/// The chunk returns a table of the functions the shell calls (`show`, `pretty`, `complete`, `set_width`); the
/// asserting functions become globals, so examples and tests can use them without a `require`.
enum ShellPrelude {
    /// Runs the prelude in `vm` and returns the functions the shell calls.
    static func functions(in vm: LuaVM) -> (show: LuaRef, pretty: LuaRef, complete: LuaRef, setWidth: LuaRef) {
        do {
            let results = try vm.call(try vm.load(source, chunkName: "=fluxsh"), results: 1) { lua, range in
                lua.ref(at: range.lowerBound)
            }
            let lua = vm.stack
            func field(_ name: String) -> LuaRef {
                lua.push(results)
                _ = lua.rawGet(name, from: -1)
                defer { lua.pop(2) }
                return lua.ref(at: -1)
            }
            return (field("show"), field("pretty"), field("complete"), field("set_width"))
        } catch {
            preconditionFailure("the shell prelude does not load: \(error)")
        }
    }

    static let source = #"""
    local type, tostring, pairs, next, getmetatable, select, error, pcall =
          type, tostring, pairs, next, getmetatable, select, error, pcall
    local format, concat, sort, pack, mathtype = string.format, table.concat, table.sort, table.pack, math.type
    -- Called as functions, not as methods of a string: a script can change the strings' metatable.
    local match, gmatch, gsub, sub, find = string.match, string.gmatch, string.gsub, string.sub, string.find
    local rawget = rawget
    -- The real metatable, past a __metatable field a script set (the host's own stay hidden: debug.getmetatable
    -- honours theirs).
    local rawmetatable = debug and debug.getmetatable or getmetatable

    local function metafield(value, name)
      local mt = rawmetatable(value)
      if type(mt) ~= "table" then return nil end
      return rawget(mt, name)
    end

    local keywords = {}
    for word in gmatch("and break do else elseif end false for function goto if in local nil not or repeat "
                       .. "return then true until while", "%a+") do
      keywords[word] = true
    end

    local function quote(s)
      return (gsub(format("%q", s), "\\\n", "\\n"))
    end

    -- Numbers before strings before the rest; each kind in its natural order.
    local rank = { number = 1, string = 2 }
    local function before(a, b)
      local ra, rb = rank[type(a)] or 3, rank[type(b)] or 3
      if ra ~= rb then return ra < rb end
      if ra == 3 then
        -- No metamethod runs: kinds by name, then false before true, then addresses.
        local ta, tb = type(a), type(b)
        if ta ~= tb then return ta < tb end
        if ta == "boolean" then return b and not a end
        return format("%p", a) < format("%p", b)
      end
      return a < b
    end

    local function key_text(k)
      if type(k) == "string" and match(k, "^[%a_][%w_]*$") and not keywords[k] then return k end
      if type(k) == "string" then return "[" .. quote(k) .. "]" end
      if type(k) == "number" or type(k) == "boolean" then return "[" .. tostring(k) .. "]" end
      return "[" .. format("%s: %p", type(k), k) .. "]"
    end

    -- The columns a value may take on one line: the terminal's less a margin, set by the shell.
    local width = 78
    local function set_width(columns) width = columns end

    -- A read-only state view from the flux module: its fields, through the view's own pairs.
    local function view_fields(value)
      -- Its metatable is the host's, hidden: getmetatable gives its name.
      if type(value) ~= "userdata" or getmetatable(value) ~= "flux.state" then return nil end
      local fields = {}
      for k, v in pairs(value) do fields[k] = v end
      return fields
    end

    -- A value as a Lua constructor would write it: keys sorted, short tables on one line, the
    -- tables already open on the way down marked as cycles. Tables are read raw (next, rawget), so
    -- no __index, __pairs or __len runs; __tostring and __name are honoured as `lua` prints values.
    local function pretty(value, indent, open, limit)
      local kind = type(value)
      if kind == "string" then return quote(value) end
      if kind ~= "table" and kind ~= "userdata" then return tostring(value) end
      local fields = view_fields(value)
      if not fields then
        if kind ~= "table" or metafield(value, "__tostring") ~= nil or type(metafield(value, "__name")) == "string" then
          return tostring(value)
        end
        fields = value
      end
      open = open or {}
      if open[value] then return "<cycle>" end
      open[value] = true
      indent = indent or ""
      local inner = indent .. "  "

      local keys, count, length = {}, 0, 0
      for k in next, fields do
        count = count + 1
        keys[count] = k
      end
      while rawget(fields, length + 1) ~= nil do length = length + 1 end
      local rest = {}
      for _, k in next, keys do
        if not (mathtype(k) == "integer" and k >= 1 and k <= length) then rest[#rest + 1] = k end
      end
      sort(rest, before)

      local parts, multiline = {}, false
      for i = 1, length do
        parts[#parts + 1] = pretty(rawget(fields, i), inner, open, limit)
      end
      for _, k in next, rest do
        parts[#parts + 1] = key_text(k) .. " = " .. pretty(rawget(fields, k), inner, open, limit)
      end
      open[value] = nil
      if #parts == 0 then return "{}" end
      local line = "{" .. concat(parts, ", ") .. "}"
      for _, part in next, parts do
        if find(part, "\n", 1, true) then multiline = true break end
      end
      if not multiline and #indent + #line <= (limit or width) then return line end
      return "{\n" .. inner .. concat(parts, ",\n" .. inner) .. ",\n" .. indent .. "}"
    end

    -- What the REPL prints for a chunk's results: strings as they are (as `lua` does), other values
    -- in constructor form, tab-separated.
    local function show(...)
      local results = pack(...)
      local parts = {}
      for i = 1, results.n do
        local value = results[i]
        parts[i] = type(value) == "string" and value or pretty(value)
      end
      return concat(parts, "\t")
    end

    -- The fields of the table a dotted prefix names, as whole words: "flux.di" -> "flux.dispatch".
    local function complete(word)
      local path, last = match(word, "^(.*)[.:]([%w_]*)$")
      local base = _G
      local lead = ""
      if path then
        lead = sub(word, 1, #path + 1)
        for name in gmatch(path, "[^.:]+") do
          local ok, field = pcall(function() return base[name] end)
          if not ok then return {} end
          base = field
        end
      else
        last = word
      end
      local names, seen = {}, {}
      local function add(k)
        if type(k) == "string" and not seen[k] and sub(k, 1, #last) == last and match(k, "^[%a_][%w_]*$") then
          seen[k] = true
          names[#names + 1] = lead .. k
        end
      end
      local function add_fields(t)
        if type(t) ~= "table" then return end
        pcall(function() for k in pairs(t) do add(k) end end) -- a __pairs that fails offers nothing
      end
      add_fields(base)
      local mt = getmetatable(base)
      if type(mt) == "table" then add_fields(mt.__index) end
      if not path then
        for k in pairs(keywords) do add(k) end
      end
      sort(names)
      return names
    end

    local function equal(a, b, pairs_seen)
      if a == b then return true end
      if type(a) ~= "table" or type(b) ~= "table" then
        return a ~= a and b ~= b -- NaN equals NaN here: a test means "the same value"
      end
      pairs_seen = pairs_seen or {}
      if pairs_seen[a] == b then return true end
      pairs_seen[a] = b
      local count = 0
      for k, v in pairs(a) do
        count = count + 1
        if not equal(v, b[k], pairs_seen) then return false end
      end
      for _ in pairs(b) do count = count - 1 end
      return count == 0
    end

    -- expect(actual, expected [, what]): deep equality, failing at the caller's line.
    function expect(actual, expected, what)
      if equal(actual, expected) then return actual end
      -- On one line, so a failing test reports it whole.
      local message = format("expected %s, got %s", pretty(expected, "", nil, math.huge), pretty(actual, "", nil, math.huge))
      if what ~= nil then message = tostring(what) .. ": " .. message end
      error(message, 2)
    end

    -- expect_error(fn [, fragment]): fn must fail, with a message holding `fragment`; returns it.
    function expect_error(fn, fragment)
      if type(fn) ~= "function" then
        error("bad argument #1 to 'expect_error' (function expected, got " .. type(fn) .. ")", 2)
      end
      local ok, err = pcall(fn)
      if ok then
        error(fragment and format("expected an error containing %s, but none was raised", quote(fragment))
              or "expected an error, but none was raised", 2)
      end
      local message = tostring(err)
      if fragment ~= nil and not find(message, tostring(fragment), 1, true) then
        error(format("expected an error containing %s, got %s", quote(tostring(fragment)), quote(message)), 2)
      end
      return message
    end

    return { show = show, pretty = pretty, complete = complete, set_width = set_width }
    """#
}
