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

    -- What a value shows as fields: a table's own, a state view's; nil for what shows as tostring does.
    local function fields_of(value, kind)
      local fields = view_fields(value)
      if fields then return fields end
      if kind ~= "table" or metafield(value, "__tostring") ~= nil or type(metafield(value, "__name")) == "string" then
        return nil
      end
      return value
    end

    -- The text of a value that is not shown as fields.
    local function scalar_text(value, kind)
      if kind == "string" then return quote(value) end
      return tostring(value)
    end

    -- How many of a table's fields 1, 2, … are not nil, counting no further than `most`.
    local function border(fields, most)
      local length = 0
      while length < most and rawget(fields, length + 1) ~= nil do length = length + 1 end
      return length
    end

    -- Whether key k of a table whose sequence is 1 … length shows without its key.
    local function in_sequence(k, length)
      return mathtype(k) == "integer" and k >= 1 and k <= length
    end

    -- The length of a value's one-line text when it is at most `room`, else nil: the walk stops as soon as
    -- the text would pass `room`, so each value costs at most `room` of work whatever lies below it.
    local function measure(value, room, open)
      local kind = type(value)
      local fields = (kind == "table" or kind == "userdata") and fields_of(value, kind)
      if not fields then
        local text = scalar_text(value, kind)
        if #text > room or find(text, "\n", 1, true) then return nil end
        return #text
      end
      if open[value] then return room >= 7 and 7 or nil end -- <cycle>
      open[value] = true
      local used, count = 2, 0
      local length = border(fields, room)
      for k, v in next, fields do
        if count > 0 then used = used + 2 end
        count = count + 1
        if not in_sequence(k, length) then used = used + #key_text(k) + 3 end
        local size = used <= room and measure(v, room - used, open)
        if not size then open[value] = nil return nil end
        used = used + size
      end
      open[value] = nil
      return used
    end

    -- The keys of a table in the order they show: the sequence first, then the rest sorted.
    local function ordered_keys(fields)
      local length = border(fields, math.huge)
      local keys = {}
      for i = 1, length do keys[i] = i end
      local rest = {}
      for k in next, fields do
        if not in_sequence(k, length) then rest[#rest + 1] = k end
      end
      sort(rest, before)
      for _, k in next, rest do keys[#keys + 1] = k end
      return keys, length
    end

    -- Indentation grows no deeper than this: a table nested thousands deep prints in lines of bounded
    -- width, so printing it takes time in proportion to its size.
    local deepest_indent = 64

    -- Appends value's text to out: a table on one line when it fits `limit` columns after `indent` (or
    -- when `flat`: it is inside one known to), else one field a line.
    local function write(value, indent, open, limit, out, flat)
      local kind = type(value)
      local fields = (kind == "table" or kind == "userdata") and fields_of(value, kind)
      if not fields then out[#out + 1] = scalar_text(value, kind) return end
      if open[value] then out[#out + 1] = "<cycle>" return end
      flat = flat or limit == math.huge or measure(value, limit - #indent, open) ~= nil
      open[value] = true
      local keys, length = ordered_keys(fields)
      if #keys == 0 then
        out[#out + 1] = "{}"
      else
        local inner = #indent < deepest_indent and indent .. "  " or indent
        local between = flat and ", " or ",\n" .. inner
        out[#out + 1] = flat and "{" or "{\n" .. inner
        for i, k in next, keys do
          if i > 1 then out[#out + 1] = between end
          if not in_sequence(k, length) then out[#out + 1] = key_text(k) .. " = " end
          write(rawget(fields, k), flat and "" or inner, open, limit, out, flat)
        end
        out[#out + 1] = flat and "}" or ",\n" .. indent .. "}"
      end
      open[value] = nil
    end

    -- A value as a Lua constructor would write it: keys sorted, short tables on one line, the
    -- tables already open on the way down marked as cycles. Tables are read raw (next, rawget), so
    -- no __index, __pairs or __len runs; __tostring and __name are honoured as `lua` prints values.
    -- Linear in the value's size, however deeply it nests.
    local function pretty(value, indent, open, limit)
      local out = {}
      write(value, indent or "", open or {}, limit or width, out)
      return concat(out)
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

    -- The fields of a table or of a state view, as `pairs` gives them; nil for any other value.
    local function fields_of(value)
      if type(value) == "table" then
        local fields = {}
        for k, v in pairs(value) do fields[k] = v end
        return fields
      end
      return view_fields(value)
    end

    -- A path to a field, as Lua would write it: items[2].priority, ["a b"].
    local function path_to(path, k)
      if type(k) == "string" and match(k, "^[%a_][%w_]*$") and not keywords[k] then
        return path == "" and k or path .. "." .. k
      end
      if type(k) == "string" then return path .. "[" .. quote(k) .. "]" end
      if type(k) == "number" or type(k) == "boolean" then return path .. "[" .. tostring(k) .. "]" end
      return path .. "[" .. format("%s: %p", type(k), k) .. "]"
    end

    -- A value on one line, cut when long: a difference names a field, not a whole state.
    local function brief(value)
      local text = pretty(value, "", nil, math.huge)
      if #text > 160 then text = sub(text, 1, 150) .. " …" .. sub(text, -8) end
      return text
    end

    -- Appends to `out` each place where `actual` and `expected` differ, as {path, expected, actual}:
    -- tables and state views are compared field by field, deep; a pair of tables already being compared
    -- (a cycle) is taken as equal; NaN equals NaN (a test means "the same value").
    local function differences(actual, expected, path, out, comparing)
      if actual == expected or (actual ~= actual and expected ~= expected) then return out end
      local got, want = fields_of(actual), fields_of(expected)
      if not got or not want then
        out[#out + 1] = {path, expected, actual}
        return out
      end
      comparing[actual] = comparing[actual] or {}
      if comparing[actual][expected] then return out end
      comparing[actual][expected] = true
      local keys, seen = {}, {}
      for k in next, want do keys[#keys + 1] = k; seen[k] = true end
      for k in next, got do if not seen[k] then keys[#keys + 1] = k end end
      sort(keys, before)
      for _, k in next, keys do differences(got[k], want[k], path_to(path, k), out, comparing) end
      comparing[actual][expected] = nil
      return out
    end

    -- The differences between two values as lines `path: expected X, got Y` (no path for the values
    -- themselves), at most `limit`; nil when they are equal.
    local function diff(actual, expected, limit)
      local found = differences(actual, expected, "", {}, {})
      if #found == 0 then return nil end
      limit = limit or 20
      local lines = {}
      for i = 1, math.min(#found, limit) do
        local d = found[i]
        lines[i] = (d[1] == "" and "" or d[1] .. ": ") .. "expected " .. brief(d[2]) .. ", got " .. brief(d[3])
      end
      if #found > limit then lines[#lines + 1] = format("… and %d more", #found - limit) end
      return lines, #found
    end

    -- The failure message of a diff: one difference on one line, several as a count and a line each.
    local function diff_message(lines, count, what)
      local lead = what ~= nil and tostring(what) .. ": " or ""
      if count == 1 then return lead .. lines[1] end
      return lead .. count .. " differences:\n  " .. concat(lines, "\n  ")
    end

    -- expect(actual, expected [, what]): deep equality, failing at the caller's line with what differs.
    function expect(actual, expected, what)
      local lines, count = diff(actual, expected)
      if not lines then return actual end
      error(diff_message(lines, count, what), 2)
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
