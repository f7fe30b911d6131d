-- A log tail as a plugin: every `ERROR:` line appended to a growing file becomes an issue.
--
-- Load it with `:load examples/log_tail`, select a blueprint and start following a file:
--   :dispatch issues.selectBlueprint {blueprint = "A-101"}
--   :dispatch logTail.follow {path = "/tmp/app.log"}
-- then `echo "ERROR: disk full" >> /tmp/app.log` and `:render visibleIssues`. The file is watched
-- (flux.watch_path) and read from where the last read stopped; the watch belongs to the plugin, so
-- `:unload log_tail` ends it. Its test: examples/log_tail.lua.

flux.store{
  name = "logTail",
  state = {path = false, lines = 0, errors = 0},
  on = {
    ["logTail.follow"] = function(state, action)
      if type(action.path) ~= "string" then error("logTail.follow: 'path' must be the file to follow", 0) end
      state.path, state.lines, state.errors = action.path, 0, 0
      return state
    end,
    ["logTail.line"] = function(state, action)
      state.lines = state.lines + 1
      if action.error then state.errors = state.errors + 1 end
      return state
    end,
  },
}

local watch, offset, partial

-- Reads what was appended since the last read; hands on each complete line.
local function readNew(path, each)
  local file = io.open(path, "rb")
  if not file then return end
  local size = file:seek("end")
  if size < offset then offset, partial = 0, "" end -- truncated or replaced: start over
  file:seek("set", offset)
  local text = file:read("a") or ""
  file:close()
  offset = offset + #text
  text = partial .. text
  for line, rest in text:gmatch("([^\n]*)\n()") do each(line) end
  partial = text:match("[^\n]*$")
end

local function take(line)
  local message = line:match("^ERROR:%s*(.+)$")
  flux.dispatch("logTail.line", {error = message ~= nil})
  if message then flux.dispatch("issues.create", {title = message}) end
end

flux.on("logTail.follow", function(action)
  if watch then watch:cancel() end
  offset, partial = 0, ""
  readNew(action.path, take)
  watch = flux.watch_path(action.path, function(event)
    if event == "removed" then watch = nil return end
    readNew(action.path, take)
  end)
end)
