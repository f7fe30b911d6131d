-- A plugin whose subscriber reloads it while it is being told of a change (not when it subscribes: a
-- subscriber is told the state at once, and a reload there would reload for ever).
flux.store{name = "selfreload", state = {n = 0}, on = {["selfreload.up"] = function(s) s.n = s.n + 1 end}}
flux.subscribe("selfreload", function(state, previous)
  collectgarbage("collect")
  if previous and state.n % 2 == 1 then flux.exec(":reload selfreload") end
  collectgarbage("collect")
end)
