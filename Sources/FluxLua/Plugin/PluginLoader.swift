/// The Lua function that prepares a plugin's file: `prepare(folder, source, chunkname)` returns its chunk,
/// for the host to run, or nil and the message when the file does not compile.
///
/// Each run gets an environment of its own whose globals are the VM's (reads and writes go to `_G`)
/// but whose `require` is private: it looks in the plugin's folder first (`name.lua`, `name/init.lua`)
/// and caches what it loads in a table of this run, so two plugins' `util.lua` never meet and a reload
/// reads edited modules again. Other names go to the VM's `require` (a module found nowhere is reported
/// with the plugin's folder first in the list of files tried, where the fix usually is). The functions it uses are taken
/// when the host starts, so a script that replaces `load` or `require` does not change how plugins load.
enum PluginLoader {
    static let source = #"""
    local load, loadfile, searchpath, require = load, loadfile, package.searchpath, require
    local setmetatable, rawset, type, error, G = setmetatable, rawset, type, error, _G
    local pcall, find, sub = pcall, string.find, string.sub
    return function(folder, source, chunkname)
      local env = setmetatable({}, {__index = G, __newindex = G})
      local loaded = {}
      local path = folder and (folder .. "/?.lua;" .. folder .. "/?/init.lua")
      rawset(env, "require", function(name)
        if type(name) ~= "string" or not path then return require(name) end
        local cached = loaded[name]
        if cached ~= nil then return cached end
        local file, tried = searchpath(name, path)
        if not file then
          -- Not in the plugin's folder: Lua's require, whose "not found" names that folder first.
          local ok, result, extra = pcall(require, name)
          if ok then return result, extra end
          local prefix = "module '" .. name .. "' not found:"
          if type(result) == "string" and find(result, prefix, 1, true) == 1 then
            error(prefix .. "\n\t" .. tried .. sub(result, #prefix + 1), 2)
          end
          error(result, 0)
        end
        local chunk, message = loadfile(file, "t", env)
        if not chunk then error(message, 0) end
        local result = chunk(name, file)
        if result == nil then result = loaded[name] == nil and true or loaded[name] end
        loaded[name] = result
        return result, file
      end)
      return load(source, chunkname, "t", env)
    end
    """#
}
