-- A plugin with a manifest, options, a command and a health check.
--
-- Load it with `fluxsh --plugins examples/plugins` (or `:load examples/plugins/notes`), then:
--   :note add buy milk
--   :note list
--   :note <Tab>            (offers add, list, drop, clear)
--   :health
local options = flux.options()          -- this plugin's: the manifest's defaults, configured values over them

flux.store{
  name = "notes",
  state = {items = {}},
  on = {
    ["notes.add"] = function(state, action)
      if #state.items >= options.limit then
        error("notes: the limit of " .. options.limit .. " notes is reached (flux.configure(\"notes\", {limit = …}))", 0)
      end
      state.items[#state.items + 1] = action.text
    end,
    ["notes.drop"] = function(state, action)
      if not state.items[action.index] then error("notes: no note " .. tostring(action.index), 0) end
      table.remove(state.items, action.index)
    end,
    ["notes.clear"] = function(state) state.items = {} end,
  },
  actions = {
    ["notes.add"] = {text = "string"},
    ["notes.drop"] = {index = "integer"},
  },
}

local function list()
  local lines = {}
  for index, text in ipairs(flux.state("notes").items) do
    lines[#lines + 1] = string.format("%s %d. %s", options.marker, index, text)
  end
  return #lines > 0 and table.concat(lines, "\n") or "no notes"
end

local subcommands = {"add", "list", "drop", "clear"}

flux.command{
  name = "note",
  usage = "add <text> | list | drop <n> | clear",
  summary = "keep notes: add one, list them, drop one, clear all",
  run = function(args)
    local what = args[1] or "list"
    if what == "add" then
      local text = args.text:match("^%s*add%s+(.-)%s*$")
      if not text or text == "" then error("usage: :note add <text>", 0) end
      flux.dispatch("notes.add", {text = text})
    elseif what == "list" then
      return list()
    elseif what == "drop" then
      flux.dispatch("notes.drop", {index = math.tointeger(tonumber(args[2])) or 0})
    elseif what == "clear" then
      flux.dispatch("notes.clear")
    else
      error("unknown subcommand '" .. what .. "' (add, list, drop, clear)", 0)
    end
  end,
  complete = function(prefix, text)
    if text:find("%s") then return {} end -- only the first word completes
    local found = {}
    for _, name in ipairs(subcommands) do
      if name:sub(1, #prefix) == prefix then found[#found + 1] = name end
    end
    return found
  end,
}

-- What other plugins get with `require "notes"` (when their manifest lists it), and :health's check.
return {
  count = function() return #flux.state("notes").items end,
  list = list,
  check = function()
    local count = #flux.state("notes").items
    local checks = {{status = "ok", message = count .. " of " .. options.limit .. " notes"}}
    if count >= options.limit then
      checks[#checks + 1] = {status = "warning", message = "the list is full",
                             advice = "drop some (:note drop N) or raise the limit: flux.configure(\"notes\", {limit = …})"}
    end
    return checks
  end,
}
