-- A plugin whose timers unload and reload it, and whose view's cell action unloads it while open.
flux.store{name = "timebomb", state = {ticks = 0},
  on = {["timebomb.tick"] = function(s) s.ticks = s.ticks + 1 end,
        ["timebomb.leave"] = function(s) s.leaving = true end}}
flux.every(100, function()
  flux.dispatch("timebomb.tick")
  collectgarbage("collect")
  local ticks = flux.state("timebomb").ticks
  if ticks == 3 then flux.exec(":reload timebomb") end
  if ticks == 5 then flux.exec(":unload timebomb") end
end)
flux.subscribe("timebomb", function(state, previous)
  if previous and state.leaving then flux.exec(":unload timebomb") end
end)
flux.view("timebomb", {store = "timebomb", render = function(state)
  return {sections = {{cells = {{id = "leave", title = "leave (" .. state.ticks .. ")", action = "timebomb.leave"}}}}}
end})
