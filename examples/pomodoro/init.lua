-- A pomodoro timer as a plugin: effects driven by actions.
--
-- Load it with `:load examples/pomodoro`, then `:dispatch pomodoro.start` and `:watch pomodoro`: a
-- 25-minute work phase counts down a second at a time, then a 5-minute break, and so on until
-- `:dispatch pomodoro.stop`. The store's handlers stay pure; the one timer lives in a `flux.on` listener,
-- owned by the plugin, so `:unload pomodoro` stops it. Its test runs an hour in virtual time:
-- examples/pomodoro.lua.

local WORK, BREAK = 25 * 60, 5 * 60

flux.store{
  name = "pomodoro",
  state = {phase = "idle", remaining = 0, completed = 0},
  on = {
    ["pomodoro.start"] = function(state)
      if state.phase ~= "idle" then error("pomodoro.start: already running (" .. state.phase .. ")", 0) end
      state.phase, state.remaining = "work", WORK
      return state
    end,
    ["pomodoro.tick"] = function(state)
      if state.phase == "idle" then return state end
      state.remaining = state.remaining - 1
      if state.remaining > 0 then return state end
      if state.phase == "work" then
        state.completed = state.completed + 1
        state.phase, state.remaining = "break", BREAK
      else
        state.phase, state.remaining = "work", WORK
      end
      return state
    end,
    ["pomodoro.stop"] = function(state)
      state.phase, state.remaining = "idle", 0
      return state
    end,
  },
}

flux.view("pomodoro", {store = "pomodoro", render = function(state)
  local clock = string.format("%02d:%02d", state.remaining // 60, state.remaining % 60)
  return {sections = {{header = "Pomodoro", cells = {
    {id = "phase", title = state.phase, detail = state.phase == "idle" and "" or clock},
    {id = "done", title = "Completed", detail = tostring(state.completed)},
  }}}}
end})

-- The effect: a one-second tick while a pomodoro runs. Started once the start has committed (a refused
-- start starts nothing), ended by the stop.
local ticking
flux.on("pomodoro.start", function()
  if ticking then ticking:cancel() end
  ticking = flux.every(1000, function() flux.dispatch("pomodoro.tick") end)
end)
flux.on("pomodoro.stop", function()
  if ticking then ticking:cancel(); ticking = nil end
end)
