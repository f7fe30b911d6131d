/// The spec runtime written in Lua: `describe`, `it`, `before_each`, `after_each`, `pending`,
/// `expect_snapshot` and `flux.test_store`, as busted and TCA's `TestStore` write them.
///
/// The chunk gets the host's hooks (``SpecRuntime``) as its argument. A test is run when its outermost
/// `describe` returns (a top-level `it` at once), so a spec runs under `fluxsh run` as under `fluxsh test`,
/// in the script's order. Before every test the stores are put back to the state they had when the
/// outermost `describe` began (``SpecRuntime/restoreStores()``); each result goes to `hooks.report`.
enum SpecPrelude {
    static let source = #"""
    local hooks, expect, pretty = ...
    local type, tostring, error, xpcall, pcall, select, setmetatable, next, pairs, ipairs =
          type, tostring, error, xpcall, pcall, select, setmetatable, next, pairs, ipairs
    local format, concat, insert, remove = string.format, table.concat, table.insert, table.remove
    local find, sub, match, gsub = string.find, string.sub, string.match, string.gsub
    local getinfo, traceback = debug.getinfo, debug.traceback
    local io_open = io.open
    local flux = flux
    local dispatch, state_of = flux.dispatch, flux.state

    local root = {items = {}, before = {}, after = {}}
    local collecting = nil   -- the describe whose body runs now
    local running = nil      -- the test running now
    local stopped = false    -- -x: a test failed, run no more

    local function show(value) return pretty(value, "", nil, math.huge) end

    -- The first level from `from`, as the function calling this one counts them, that runs neither this
    -- runtime's code nor C: the script's line.
    local function outside(from)
      local level = from
      while true do
        local info = getinfo(level + 1, "S")
        if not info then return from end
        if info.what ~= "C" and info.source ~= "=fluxsh" then return level end
        level = level + 1
      end
    end

    -- The file and line of the script's code at `level` (as the caller counts) or below it.
    local function place(level)
      local info = getinfo(outside(level + 1), "Sl")
      return info and info.short_src or "?", info and info.currentline or 0
    end

    -- What a failing test reports: the message (led by its place) and the traceback from the failing
    -- line down to the test's own function, no frame of the runner.
    local function on_error(err)
      local message = type(err) == "string" and err or show(err)
      local level = outside(2)
      local text = traceback("", level)
      local lines = {}
      for line in text:gmatch("[^\n]+") do
        if find(line, "[C]: in function 'xpcall'", 1, true) or find(line, "\tfluxsh:", 1, true) then break end
        if line ~= "" then lines[#lines + 1] = line end
      end
      local info = getinfo(level, "Sl")
      if type(err) ~= "string" or not find(message, "^[^\n]*:%d+: ") then
        if info and info.currentline > 0 then message = info.short_src .. ":" .. info.currentline .. ": " .. message end
      end
      return {message = message, traceback = concat(lines, "\n")}
    end

    local function argument(value, kind, position, name)
      if type(value) ~= kind then
        error(format("bad argument #%d to '%s' (%s expected, got %s)", position, name, kind, type(value)), 3)
      end
    end

    local function add(item)
      if running then error("'" .. item.kind .. "' inside a running test: declare it in a describe", 3) end
      insert((collecting or root).items, item)
    end

    local function chain(group)
      local groups = {}
      while group do insert(groups, 1, group); group = group.parent end
      return groups
    end

    local function names_of(test)
      local names = {}
      for _, group in ipairs(chain(test.parent)) do
        if group.name then names[#names + 1] = group.name end
      end
      names[#names + 1] = test.name
      return names
    end

    local function run_test(test)
      local names = names_of(test)
      local result = {names = names, file = test.file, line = test.line, status = "passed"}
      if not hooks.selected(concat(names, " ")) then return end
      if test.pending or stopped then
        if test.pending then
          result.status = "pending"
          hooks.report(result)
        end
        return
      end
      if hooks.listing() then
        result.status = "listed"
        hooks.report(result)
        return
      end
      local started = hooks.clock()
      hooks.restore_stores()
      running = {stores = {}}
      local failure
      local groups = chain(test.parent)
      for _, group in ipairs(groups) do
        for _, fn in ipairs(group.before) do
          if not failure then
            local ok, err = xpcall(fn, on_error)
            if not ok then failure = err end
          end
        end
      end
      if not failure then
        local ok, err = xpcall(test.fn, on_error)
        if not ok then failure = err end
      end
      if not failure then
        -- Its test stores received every action: a failure is placed at the test's `it`.
        for _, store in ipairs(running.stores) do
          local ok, err = pcall(store.unreceived, store)
          if not ok and not failure then
            failure = {message = test.file .. ":" .. test.line .. ": " .. tostring(err), traceback = ""}
          end
        end
      end
      for i = #groups, 1, -1 do
        for _, fn in ipairs(groups[i].after) do
          local ok, err = xpcall(fn, on_error)
          if not ok and not failure then failure = err end
        end
      end
      for _, store in ipairs(running.stores) do store:close() end
      running = nil
      if failure then
        result.status = "failed"
        result.message = failure.message
        result.traceback = failure.traceback
        if hooks.stops() then stopped = true end
      end
      result.milliseconds = (hooks.clock() - started) * 1000
      hooks.report(result)
    end

    local function run_group(group)
      for _, item in ipairs(group.items) do
        if item.kind == "describe" then run_group(item) else run_test(item) end
      end
    end

    -- describe(name, body): a group of tests; its body declares them. The outermost one runs them as it
    -- returns, each with the stores as they were when it began.
    function describe(name, body)
      argument(name, "string", 1, "describe")
      argument(body, "function", 2, "describe")
      local file, line = place(2)
      local group = {kind = "describe", name = name, parent = collecting or root, items = {}, before = {},
                     after = {}, file = file, line = line}
      add(group)
      local outer = collecting
      collecting = group
      local ok, err = xpcall(body, on_error)
      collecting = outer
      if not ok then
        -- A describe whose body fails is one failed test: its tests never ran.
        group.items = {{kind = "it", name = "(declaring)", parent = group, file = file, line = line,
                        fn = function() error(err.message, 0) end}}
      end
      if outer == nil then
        remove(root.items)
        hooks.capture_stores()
        run_group(group)
        hooks.release_stores()
      end
    end
    context = describe

    -- it(name, body): one test. Outside a describe it runs at once.
    function it(name, body)
      argument(name, "string", 1, "it")
      if body ~= nil then argument(body, "function", 2, "it") end
      local file, line = place(2)
      local test = {kind = "it", name = name, fn = body, pending = body == nil, parent = collecting or root,
                    file = file, line = line}
      if collecting then
        add(test)
      else
        if running then error("'it' inside a running test: declare it in a describe", 2) end
        hooks.capture_stores()
        run_test(test)
        hooks.release_stores()
      end
    end

    -- pending(name): a test to write later, reported, not run.
    function pending(name)
      argument(name, "string", 1, "pending")
      local file, line = place(2)
      local test = {kind = "it", name = name, pending = true, parent = collecting or root, file = file, line = line}
      if collecting then add(test) else run_test(test) end
    end

    local function hook(list_name, fn_name)
      return function(fn)
        argument(fn, "function", 1, fn_name)
        if running then error("'" .. fn_name .. "' inside a running test: declare it in a describe", 2) end
        insert((collecting or root)[list_name], fn)
      end
    end
    before_each = hook("before", "before_each")
    after_each = hook("after", "after_each")

    -- Failure of a check as expect reports it: raised at the test's line.
    local function check(actual, expected, what, level)
      local ok, message = pcall(expect, actual, expected, what)
      if not ok then error(message, level + 1) end
    end

    ---------------------------------------------------------------- golden files

    -- The lines of `text`.
    local function lines_of(text)
      local lines = {}
      for line in (text .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
      if lines[#lines] == "" then lines[#lines] = nil end
      return lines
    end

    -- A line diff of two texts (longest common subsequence): `-` lines of the golden file, `+` lines of
    -- the text given, ` ` shared ones next to a change.
    local function text_diff(expected, actual)
      local a, b = lines_of(expected), lines_of(actual)
      local n, m = #a, #b
      local lcs = {}
      for i = n + 1, 1, -1 do
        lcs[i] = {}
        for j = m + 1, 1, -1 do
          if i > n or j > m then lcs[i][j] = 0
          elseif a[i] == b[j] then lcs[i][j] = lcs[i + 1][j + 1] + 1
          else lcs[i][j] = math.max(lcs[i + 1][j], lcs[i][j + 1]) end
        end
      end
      local out, i, j = {}, 1, 1
      while i <= n or j <= m do
        if i <= n and j <= m and a[i] == b[j] then out[#out + 1] = {" ", a[i]}; i = i + 1; j = j + 1
        elseif i <= n and (j > m or lcs[i + 1][j] >= lcs[i][j + 1]) then out[#out + 1] = {"-", a[i]}; i = i + 1
        else out[#out + 1] = {"+", b[j]}; j = j + 1 end
      end
      local shown = {}
      for k, line in ipairs(out) do
        local near = line[1] ~= " " or (out[k - 1] and out[k - 1][1] ~= " ") or (out[k + 1] and out[k + 1][1] ~= " ")
        if near then shown[#shown + 1] = line[1] .. " " .. line[2] end
      end
      return concat(shown, "\n  ")
    end

    -- expect_snapshot(name, text): `text` must equal the golden file NAME.txt in the folder
    -- SCRIPT.snapshots beside the test; `fluxsh test --update-snapshots` writes it.
    function expect_snapshot(name, text)
      argument(name, "string", 1, "expect_snapshot")
      argument(text, "string", 2, "expect_snapshot")
      if not match(name, "^[%w_.-]+$") or match(name, "^%.") then
        error("bad argument #1 to 'expect_snapshot' (a name of letters, digits, '_', '-' and '.', got " .. format("%q", name) .. ")", 2)
      end
      local info = getinfo(outside(2), "S")
      local script = info and match(info.source, "^@(.*)$")
      if not script then error("expect_snapshot runs in a script file: its golden files are kept beside it", 2) end
      local folder = gsub(script, "%.lua$", "") .. ".snapshots"
      local path = folder .. "/" .. name .. ".txt"
      if hooks.updating_snapshots() then
        local ok, err = hooks.write_file(folder, path, text)
        if not ok then error(err, 2) end
        return text
      end
      local file = io_open(path, "rb")
      if not file then
        error("no snapshot " .. path .. ": run `fluxsh test --update-snapshots` to record it", 2)
      end
      local golden = file:read("a")
      file:close()
      if golden ~= text then
        error("snapshot " .. name .. " differs from " .. path .. " (- the file, + now):\n  " .. text_diff(golden, text)
              .. "\n(`fluxsh test --update-snapshots` records the new text)", 2)
      end
      return text
    end

    ---------------------------------------------------------------- the exhaustive test store

    local function copy(value, seen)
      if type(value) ~= "table" then return value end
      seen = seen or {}
      if seen[value] then return seen[value] end
      local result = {}
      seen[value] = result
      for k, v in next, value do result[copy(k, seen)] = copy(v, seen) end
      return result
    end

    local function describe_action(entry)
      local payload = show(entry.payload)
      return entry.name .. (payload == "{}" and "" or " " .. payload)
    end

    local TestStore = {}
    TestStore.__index = TestStore
    TestStore.__name = "flux.test_store"

    -- Takes the actions dispatched since the last look into the store's queue of actions to receive.
    function TestStore:take()
      for _, entry in ipairs(hooks.take_actions(self.name)) do self.queue[#self.queue + 1] = entry end
    end

    -- The state `change` makes of the last one known: it edits a copy in place, or returns a new state.
    function TestStore:expected(change, level)
      local expected = copy(self.state)
      if change ~= nil then
        if type(change) ~= "function" then
          error("bad argument to '" .. (self.verb or "dispatch") .. "' (a function stating the changes expected, got " .. type(change) .. ")", level + 1)
        end
        local returned = change(expected)
        if returned ~= nil then expected = returned end
      end
      return expected
    end

    function TestStore:compare(entry, expected, level)
      self.state = entry.state
      check(entry.state, expected, "state of " .. self.name .. " after " .. entry.name, level + 1)
    end

    -- Fails when actions the store handled were not received: an exhaustive test states each one.
    function TestStore:unreceived(level)
      self:take()
      if #self.queue == 0 then return end
      local names = {}
      for i, entry in ipairs(self.queue) do names[i] = "  " .. describe_action(entry) end
      self.queue = {}
      error(format("%d action%s reached %s and %s not received (t:receive(name, fn) states each):\n%s",
                   #names, #names == 1 and "" or "s", self.name, #names == 1 and "was" or "were",
                   concat(names, "\n")), level and level + 1 or 0)
    end

    -- t:dispatch(name [, payload] [, fn]): dispatches; `fn` states every change the action makes.
    function TestStore:dispatch(name, ...)
      local count = select("#", ...)
      local payload, change = ...
      if count == 1 and type(payload) == "function" then payload, change = nil, payload end
      self:unreceived(2)
      dispatch(name, payload)
      self:take()
      local entry = remove(self.queue, 1)
      if not entry or entry.name ~= name then
        if entry then insert(self.queue, 1, entry) end
        check(self.state, self:expected(change, 2), "state of " .. self.name .. " after " .. name .. " (which it does not handle)", 2)
        return self
      end
      self:compare(entry, self:expected(change, 2), 2)
      return self
    end

    -- t:receive(name [, payload] [, fn]): the next action that reached the store (a follow-up a
    -- subscriber dispatched; an effect's action once effects exist) must be `name`, with `payload` when
    -- given; `fn` states every change it made.
    function TestStore:receive(name, ...)
      argument(name, "string", 1, "receive")
      local count = select("#", ...)
      local payload, change = ...
      if count == 1 and type(payload) == "function" then payload, change = nil, payload end
      self:take()
      local entry = remove(self.queue, 1)
      if not entry then
        error("expected to receive " .. name .. ", but no action reached " .. self.name, 2)
      end
      if entry.name ~= name then
        insert(self.queue, 1, entry)
        error("expected to receive " .. name .. ", received " .. describe_action(entry), 2)
      end
      if payload ~= nil then check(entry.payload, payload, "payload of " .. name, 2) end
      self:compare(entry, self:expected(change, 2), 2)
      return self
    end

    -- t:finish(): every action received; a test's stores finish by themselves when it passes.
    function TestStore:finish()
      self:unreceived(2)
    end

    function TestStore:close()
      if self.closed then return end
      self.closed = true
      hooks.stop_recording(self.name)
    end

    TestStore.__close = TestStore.close

    -- flux.test_store(name): a store asserted exhaustively (TCA's TestStore).
    function flux.test_store(name)
      argument(name, "string", 1, "test_store")
      local state = hooks.start_recording(name)
      local t = setmetatable({name = name, state = state, queue = {}}, TestStore)
      if running then running.stores[#running.stores + 1] = t end
      return t
    end

    -- flux.load(path): loads a plugin as :load does (a relative path from the calling script's folder).
    local load_plugin = hooks.load
    function flux.load(path)
      argument(path, "string", 1, "load")
      local info = getinfo(outside(2), "S")
      local script = info and match(info.source, "^@(.*)$")
      -- Raised again from here, so that the error names the caller's line, not this prelude's.
      local loaded, problem = pcall(load_plugin, path, script)
      if not loaded then error(problem, 2) end
    end
    """#
}
