-- A plugin whose own callbacks unload it: a subscriber, a render, a finalizer.
flux.store{name = "selfunload", state = {n = 0}, on = {["selfunload.up"] = function(s) s.n = s.n + 1 end}}
flux.subscribe("selfunload", function(state, previous)
  if state.n == 2 then flux.exec(":unload selfunload") end
end)
flux.view("selfunload", {store = "selfunload", render = function(state)
  if state.n == 1 then flux.exec(":unload selfunload") end
  return {sections = {{cells = {{id = "n", title = tostring(state.n)}}}}}
end})
