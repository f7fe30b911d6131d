/// The Lua side of plugins: the chunk returns a table of two functions.
///
/// `prepare(folder, source, chunkname, owned)` returns the plugin's compiled chunk and its global
/// environment, for the host to run, or nil and the message when the file does not compile. `owned` is
/// the table of the plugin's own `flux` functions (those that register as their owner,
/// ``FluxHost/pushOwnedFunctions(of:on:)``).
///
/// `readonly(table, name)` is a read-only view of `table` (what `flux.globals(plugin)` hands out).
///
/// What a plugin's environment promises (docs/sandbox.md):
/// - its globals are its own: writes stay in its environment, reads fall through to the standard
///   library as the host started (a script that replaces `tostring` later changes no plugin);
/// - `flux` and the standard library tables it sees are read-only views, made for this plugin (a
///   `rawset` on one changes its own view only); `getmetatable("")` gives a read-only view too;
/// - `load`, `loadfile` and `dofile` compile text only, into the plugin's environment by default;
/// - `debug` reaches only the plugin's own functions and frames (a Lua function whose environment is the
///   plugin's, or one from a file the plugin loaded); what reaches every frame (`sethook`,
///   `getregistry`, the metatables of other values) is refused;
/// - `require` looks in the plugin's folder first (`name.lua`, `name/init.lua`) and caches what it loads
///   in a table of this run, so two plugins' `util.lua` never meet and a reload reads edited modules
///   again; `require "flux"` and the standard library names give the plugin's views; a plugin's name
///   gives that plugin's API, read-only, when the manifest lists it in `requires` (else an error saying
///   to add it: ``FluxHost/pluginAPI(named:)``); other names go to the VM's `require`, their tables
///   given read-only.
///
/// The chunk is called with `lookup(name)`, the host's plugin API lookup (``FluxHost/pushPluginLookup(on:)``).
/// The functions it uses are taken when the host starts, before the prompt's `require` learns plugin
/// names, so a script that replaces `load` or `require` does not change how plugins load.
enum PluginLoader {
    static let source = #"""
    local G, lookup = _G, ...
    local load, loadfile, searchpath, require, loaded = load, loadfile, package.searchpath, require, package.loaded
    local setmetatable, getmetatable, rawget, rawset, rawequal, type, error, select, next, pairs, ipairs, tostring, format =
          setmetatable, getmetatable, rawget, rawset, rawequal, type, error, select, next, pairs, ipairs, tostring, string.format
    local traceback, getinfo, getlocal, setlocal, getupvalue, setupvalue, upvalueid, upvaluejoin, rawmetatable =
          debug.traceback, debug.getinfo, debug.getlocal, debug.setlocal, debug.getupvalue, debug.setupvalue,
          debug.upvalueid, debug.upvaluejoin, debug.getmetatable
    local stringmeta = rawmetatable("")
    local pcall, find, sub = pcall, string.find, string.sub
    local fluxmodule = G.flux -- the module itself: a script that sets the global flux changes no plugin's

    -- The standard library as the host started: what every plugin's globals fall back to.
    local functions = {}
    for _, name in ipairs{"assert", "collectgarbage", "error", "ipairs", "next", "pairs", "pcall", "print", "rawequal",
                          "rawget", "rawlen", "rawset", "select", "setmetatable", "tonumber", "tostring", "type", "warn",
                          "xpcall", "_VERSION"} do
      functions[name] = G[name]
    end
    local libraries = {}
    for _, name in ipairs{"string", "table", "math", "utf8", "os", "io", "coroutine", "package"} do
      libraries[name] = G[name]
    end

    -- Read-only views of shared tables, one cache of them per plugin: nested tables are viewed too, so
    -- `package.loaded.string` is the same view as `string`.
    local function viewer()
      local views = setmetatable({}, {__mode = "k"})
      local function view(t, name)
        local seen = views[t]
        if seen then return seen end
        local function refuse(_, key)
          error(format("%s is shared and read-only: a plugin's change to it would change every plugin (%s.%s); "
            .. "keep your own: local mine = setmetatable({}, {__index = %s})", name, name, tostring(key), name), 2)
        end
        local flat = getmetatable(t) == nil
        for _, value in next, t do
          if type(value) == "table" then flat = false break end
        end
        local index = t
        if not flat then
          index = function(_, key)
            local value = t[key]
            if type(value) == "table" then return view(value, name .. "." .. tostring(key)) end
            return value
          end
        end
        local proxy = setmetatable({}, {
          __index = index,
          __newindex = refuse,
          __len = function() return #t end,
          __pairs = function(self)
            return function(_, key)
              local k, value = next(t, key)
              if type(value) == "table" then value = view(value, name .. "." .. tostring(k)) end
              return k, value
            end, self, nil
          end,
          __metatable = false,
        })
        views[t] = proxy
        return proxy
      end
      return view
    end
    local readonly = viewer()

    local plugin_debug_refusal = "debug.%s is not available to plugins: it reaches code and values of every owner"

    local function prepare(folder, source, chunkname, owned)
      local env = {}
      local shared = {}
      local view = viewer()
      -- The chunks of the files this plugin loaded: its functions that use no global are known by them.
      local sources = {[chunkname] = true}
      for name, value in pairs(functions) do shared[name] = value end
      for name, library in pairs(libraries) do shared[name] = view(library, name) end
      shared.flux = view(setmetatable(owned, {__index = fluxmodule}), "flux")
      shared._G = env

      shared.getmetatable = function(value)
        local mt = getmetatable(value)
        if rawequal(mt, stringmeta) then return view(mt, "the strings' metatable") end
        return mt
      end

      local function text_only(mode)
        if mode ~= nil and mode ~= "t" then error("plugins load text chunks only (mode \"t\")", 3) end
        return "t"
      end
      shared.load = function(...)
        local chunk, name, mode, e = ...
        if select("#", ...) < 4 then e = env end
        return load(chunk, name, text_only(mode), e)
      end
      shared.loadfile = function(...)
        local file, mode, e = ...
        if select("#", ...) < 3 then e = env end
        return loadfile(file, text_only(mode), e)
      end
      shared.dofile = function(file)
        local chunk, message = loadfile(file, "t", env)
        if not chunk then error(message, 2) end
        return chunk()
      end

      -- Whether `f` is this plugin's: a Lua function whose environment is the plugin's, or, using no
      -- global, compiled from a file the plugin loaded.
      local function owns(f)
        if type(f) ~= "function" then return false end
        local info = getinfo(f, "S")
        if info.what == "C" then return false end
        for i = 1, 255 do
          local name, value = getupvalue(f, i)
          if name == nil then break end
          if name == "_ENV" then return rawequal(value, env) end
        end
        return sources[info.source] == true
      end
      -- Raised at `level` above the caller (3: the caller of the debug function that calls this).
      local function refuse_frame(what, level)
        error(format("debug.%s: that function is not this plugin's (a plugin may look into its own code only)", what), level or 3)
      end
      -- The function at `level` of `thread` (nil: this one, seen from the caller of the debug function).
      local function frame(thread, level, what)
        if type(level) == "function" then
          if not owns(level) then refuse_frame(what, 4) end
          return
        end
        if type(level) ~= "number" then return end -- the debug function gives its own error
        local info
        if thread then info = getinfo(thread, level, "f") else info = getinfo(level + 2, "f") end
        if info and not owns(info.func) then refuse_frame(what, 4) end
      end
      local function split(...)
        if type((...)) == "thread" then return ..., select(2, ...) end
        return nil, ...
      end
      local debug_view = {
        traceback = traceback,
        getinfo = function(...)
          local thread, level = split(...)
          frame(thread, level, "getinfo")
          if thread then return getinfo(...) end
          local info
          if type(level) == "number" then info = getinfo(level + 1, select(2, ...)) else info = getinfo(...) end
          return info -- not a tail call: the levels count this function
        end,
        getlocal = function(...)
          local thread, level = split(...)
          frame(thread, level, "getlocal")
          if thread or type(level) ~= "number" then return getlocal(...) end
          local name, value = getlocal(level + 1, select(2, ...))
          return name, value
        end,
        setlocal = function(...)
          local thread, level = split(...)
          frame(thread, level, "setlocal")
          if thread or type(level) ~= "number" then return setlocal(...) end
          local name = setlocal(level + 1, select(2, ...))
          return name
        end,
        getupvalue = function(f, n)
          if not owns(f) then refuse_frame("getupvalue") end
          return getupvalue(f, n)
        end,
        setupvalue = function(f, n, value)
          if not owns(f) then refuse_frame("setupvalue") end
          return setupvalue(f, n, value)
        end,
        upvalueid = function(f, n)
          if not owns(f) then refuse_frame("upvalueid") end
          return upvalueid(f, n)
        end,
        upvaluejoin = function(f1, n1, f2, n2)
          if not owns(f1) or not owns(f2) then refuse_frame("upvaluejoin") end
          return upvaluejoin(f1, n1, f2, n2)
        end,
      }
      for _, name in ipairs{"sethook", "gethook", "getregistry", "getmetatable", "setmetatable", "getuservalue",
                            "setuservalue", "debug", "setcstacklimit"} do
        debug_view[name] = function() error(format(plugin_debug_refusal, name), 2) end
      end
      shared.debug = view(debug_view, "debug")

      -- A plugin's own modules first, then the shared ones, read-only.
      local modules = {}
      local path = folder and (folder .. "/?.lua;" .. folder .. "/?/init.lua")
      shared.require = function(name)
        if type(name) == "string" then
          if name == "flux" or name == "debug" or libraries[name] then return shared[name] end
          local cached = modules[name]
          if cached ~= nil then return cached end
          local file = path and searchpath(name, path)
          if file then
            local chunk, message = loadfile(file, "t", env)
            if not chunk then error(message, 0) end
            sources["@" .. file] = true
            local result = chunk(name, file)
            if result == nil then result = modules[name] == nil and true or modules[name] end
            modules[name] = result
            return result, file
          end
        end
        -- A plugin's API: asked for each time, so a dependency's reload is seen.
        local found, api = lookup(name)
        if found then
          if type(api) == "table" then api = view(api, tostring(name)) end
          return api
        end
        local ok, result, extra = pcall(require, name)
        if not ok then
          -- Not found anywhere: the plugin's folder heads the files tried, where the fix usually is.
          local prefix = "module '" .. tostring(name) .. "' not found:"
          if path and type(name) == "string" and type(result) == "string" and find(result, prefix, 1, true) == 1 then
            local _, tried = searchpath(name, path)
            error(prefix .. "\n\t" .. tried .. sub(result, #prefix + 1), 2)
          end
          error(result, 0)
        end
        if type(result) == "table" then result = view(result, tostring(name)) end
        return result, extra
      end

      setmetatable(env, {__index = shared, __metatable = false})
      local chunk, message = load(source, chunkname, "t", env)
      if not chunk then return nil, message end
      return chunk, env
    end

    return {prepare = prepare, readonly = readonly}
    """#
}
