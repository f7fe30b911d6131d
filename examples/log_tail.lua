-- The log tail plugin (examples/log_tail): lines appended to a file become issues.
--
-- `fluxsh test examples/log_tail.lua` runs it. File watches stay real in tests; flux.settle() waits until
-- what the watch saw has been handed on.

local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "log_tail/init.lua")

local path = os.tmpname()
local function append(text)
  local file = assert(io.open(path, "a"))
  file:write(text)
  file:close()
end
local function titles()
  local result = {}
  for i, issue in ipairs(flux.state("issues").issues) do result[i] = issue.title end
  return result
end

append("INFO: started\nERROR: disk full\n")
flux.dispatch("issues.selectBlueprint", {blueprint = "A-101"})
flux.dispatch("logTail.follow", {path = path})
expect(titles(), {"disk full"}, "what the file held already")

append("INFO: retrying\nERROR: backup failed\nERROR: half a li")
flux.settle()
expect(titles(), {"disk full", "backup failed"}, "appended lines, not the unfinished one")

append("ne\n")
flux.settle()
expect(titles(), {"disk full", "backup failed", "half a line"}, "the line once finished")
expect(flux.state("logTail").errors, 3, "error lines")
expect(flux.state("logTail").lines, 5, "all lines")

-- Each line is an undo step of its own, as if typed.
flux.undo()
expect(titles(), {"disk full", "backup failed"}, "undone")

os.remove(path)
flux.settle()
expect(#flux.effects(), 1, "the watch ended with its file; the listener remains")
