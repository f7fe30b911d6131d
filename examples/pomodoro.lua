-- The pomodoro plugin (examples/pomodoro) over an hour of virtual time, in milliseconds.
--
-- `fluxsh test examples/pomodoro.lua` runs it: timers run on a virtual clock that only flux.advance
-- moves, so a one-second tick over an hour is 3,600 firings, in order, at once.

local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "pomodoro/init.lua")

local function state() return flux.state("pomodoro") end

flux.dispatch("pomodoro.start")
expect(state().phase, "work", "started")
expect(#flux.effects(), 3, "two listeners and the ticking timer")

-- A start while running is refused, and starts no second timer: listeners hear committed actions only.
expect_error(function() flux.dispatch("pomodoro.start") end, "already running")
expect(#flux.effects(), 3, "still one timer")

expect(flux.advance(60 * 1000), 60, "a minute: 60 ticks")
expect(state().remaining, 24 * 60, "24 minutes to go")

expect(flux.advance(24 * 60 * 1000), 24 * 60, "the rest of the work phase")
expect(state().phase, "break", "then a break")
expect(state().completed, 1, "one pomodoro done")

flux.advance(5 * 60 * 1000)
expect(state().phase, "work", "back to work after 5 minutes")

-- Stop: the timer ends with it.
flux.dispatch("pomodoro.stop")
expect(flux.advance(60 * 60 * 1000), 0, "nothing ticks once stopped")
expect(state().phase, "idle", "stopped")
expect(#flux.effects(), 2, "only the listeners remain")
