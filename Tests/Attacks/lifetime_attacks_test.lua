-- Callbacks that unload, reload, redefine, cancel and collect at every point of a dispatch, a tell, a
-- render, a reload and a restore. Run plain and under FLUX_GC_TORTURE=1 (a whole collection, finalizers
-- included, after every allocation): none may crash the shell, and the stores end as a user expects.

local function has_store(name)
  for _, store in ipairs(flux.stores()) do if store == name then return true end end
  return false
end

describe("a plugin's own callbacks take it away", function()
  it("a subscriber that unloads its plugin while told", function()
    flux.load("plugins/selfunload")
    flux.dispatch("selfunload.up")      -- n = 1; nobody renders yet
    flux.dispatch("selfunload.up")      -- n = 2: the subscriber unloads the plugin
    expect(has_store("selfunload"), false, "the store went with its plugin")
    expect_error(function() flux.dispatch("selfunload.up") end, "unknown action 'selfunload.up'")
  end)

  it("a render that unloads its plugin", function()
    flux.load("plugins/selfunload")
    flux.dispatch("selfunload.up")      -- n = 1
    local ok = pcall(flux.render, "selfunload")
    collectgarbage("collect")
    expect(has_store("selfunload"), false, "the render unloaded it, whatever the render returned")
    expect_error(function() flux.render("selfunload") end, "selfunload")
  end)

  it("a subscriber that reloads its plugin while told, again and again", function()
    flux.load("plugins/selfreload")
    for _ = 1, 6 do flux.dispatch("selfreload.up") end
    expect(flux.state("selfreload").n, 6, "the store kept its state through every reload")
    flux.exec(":unload selfreload")
  end)
end)

describe("finalizers that dispatch and cancel", function()
  it("run at any point of a dispatch, a tell and a render", function()
    flux.load("plugins/finalizer")
    for _ = 1, 5 do flux.dispatch("finalizer.up") end
    flux.render("finalizer")
    collectgarbage("collect")
    expect(flux.state("finalizer").n, 5, "every dispatch counted once")
    flux.exec(":unload finalizer")
    collectgarbage("collect")
  end)
end)

describe("subscribers that redefine and cancel", function()
  it("a subscriber that redefines its own store while told", function()
    flux.store{name = "redef", state = {n = 0}, on = {["redef.up"] = function(s) s.n = s.n + 1 end}}
    flux.subscribe("redef", function(state, previous)
      if not previous then return end   -- told the state at once when subscribing: not a change
      flux.store{name = "redef", state = {n = 0}, on = {["redef.up"] = function(s) s.n = s.n + 10 end}}
      collectgarbage("collect")
    end)
    flux.dispatch("redef.up")         -- the old handler: +1; the subscriber installs +10
    flux.dispatch("redef.up")
    expect(flux.state("redef").n, 11, "the new handler from the next dispatch on, the state kept")
  end)

  it("a subscriber that cancels every subscription of its store, then dispatches", function()
    flux.store{name = "cancel", state = {n = 0}, on = {["cancel.up"] = function(s) s.n = s.n + 1 end}}
    local heard = 0
    for _ = 1, 3 do
      flux.subscribe("cancel", function(state)
        heard = heard + 1
        for _, sub in ipairs(flux.subscriptions("cancel")) do sub:cancel() end
        collectgarbage("collect")
        if state.n < 3 then flux.dispatch("cancel.up") end
      end)
    end
    flux.dispatch("cancel.up")
    expect(flux.state("cancel").n >= 1, true, "the dispatch held")
    expect(#flux.subscriptions("cancel"), 0, "every subscription cancelled")
    expect(heard >= 1, true, "a subscriber was told")
  end)
end)

describe("a restore under callbacks", function()
  it("undo and redo told to a subscriber that collects and cancels itself", function()
    flux.store{name = "restore", state = {n = 0}, on = {["restore.up"] = function(s) s.n = s.n + 1 end}}
    local sub
    sub = flux.subscribe("restore", function(state, previous)
      collectgarbage("collect")
      if previous and state.n == 0 then sub:cancel() end
    end)
    flux.dispatch("restore.up")
    flux.dispatch("restore.up")
    flux.undo()
    flux.undo()
    expect(flux.state("restore").n, 0, "two undos")
    flux.redo()
    expect(flux.state("restore").n, 1, "a redo after the subscriber left")
  end)
end)

describe("effects and live views that take their plugin away", function()
  it("a timer that reloads, then unloads, its own plugin", function()
    flux.load("plugins/timebomb")
    flux.advance(300)                  -- three ticks: the third reloads the plugin (and its timer)
    expect(flux.state("timebomb").ticks, 3, "the state kept through the reload")
    flux.advance(1000)                 -- the new timer ticks twice more, the fifth unloads
    expect(has_store("timebomb"), false, "unloaded by its own timer")
    expect(flux.advance(1000), 0, "no timer of the plugin outlives it")
  end)

  it("a view whose cell's action unloads its plugin while it is open", function()
    flux.load("plugins/timebomb")
    local ui = flux.pilot("timebomb", {width = 30, height = 5})
    ui:press("enter")                  -- timebomb.leave: its subscriber unloads the plugin
    collectgarbage("collect")
    expect(has_store("timebomb"), false, "unloaded from inside the open view")
    pcall(ui.press, ui, "down")        -- the view is closed or says so; it must not crash
    pcall(ui.screen, ui)
    ui:close()
  end)
end)
