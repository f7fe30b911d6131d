-- A plugin: a counter store and its view, in a dozen lines.
--
-- Load it with `fluxsh --plugins examples/plugins` (or `:load examples/plugins/counter.lua`), then:
--   :dispatch counter.increment {by = 5}
--   :render counter
--   :undo

flux.store{
  name = "counter",
  state = {count = 0},
  on = {
    -- `by` is optional: a bare `:dispatch counter.increment` adds one.
    ["counter.increment"] = function(state, action)
      local by = action.by or 1
      if math.type(by) ~= "integer" then error("counter.increment: 'by' must be an integer", 0) end
      state.count = state.count + by
      return state
    end,
    ["counter.reset"] = function(state)
      state.count = 0
      return state
    end,
  },
}

flux.view("counter", {store = "counter", render = function(state)
  return {sections = {{header = "Counter", height = 28, cells = {{id = "count", title = "Count", detail = tostring(state.count)}}}}}
end})
