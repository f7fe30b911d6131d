-- Objects whose finalizers dispatch, cancel and redefine, collected at any point.
flux.store{name = "finalizer", state = {n = 0, gc = 0},
  on = {["finalizer.up"] = function(s) s.n = s.n + 1 end, ["finalizer.gc"] = function(s) s.gc = s.gc + 1 end}}
local function bomb()
  return setmetatable({}, {__gc = function()
    pcall(flux.dispatch, "finalizer.gc")
    for _, sub in ipairs(flux.subscriptions("finalizer")) do pcall(sub.cancel, sub) end
  end})
end
flux.subscribe("finalizer", function(state) bomb() bomb() collectgarbage("collect") end)
flux.view("finalizer", {store = "finalizer", render = function(state)
  bomb() collectgarbage("collect")
  return {sections = {{cells = {{id = "n", title = tostring(state.n)}}}}}
end})
return {bomb = bomb}
