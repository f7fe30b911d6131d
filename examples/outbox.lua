-- The issue store synced through an outbox (examples/outbox) to its file-drop receiver, in virtual time.
--
-- `fluxsh test examples/outbox.lua` runs it: timers (the outbox's waits) run on the virtual clock,
-- the receiver is a real process, which flux.settle() waits for.

local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local inbox = os.tmpname()
os.remove(inbox) -- a folder of that name: receive.sh makes it
local previous = os.getenv
os.getenv = function(name) if name == "ISSUES_INBOX" then return inbox end return previous(name) end
dofile(here .. "outbox/init.lua")
os.getenv = previous

local function state() return flux.outbox_state("issues-sync") end
-- Sends what is due and waits for the receiver, until the outbox is empty or waits after a failure.
local function deliver()
  repeat flux.advance(0); flux.settle() until not state().in_flight and (state().pending == 0 or state().next_ms)
end
local function taken()
  local ids = {}
  for id = 1, 20 do
    local file = io.open(inbox .. "/" .. id .. ".json")
    if file then ids[#ids + 1] = id; file:close() end
  end
  return table.concat(ids, ",")
end

flux.dispatch("issues.selectBlueprint", {blueprint = "A-101"})
flux.dispatch("issues.create", {title = "Crack in east wall"})
flux.dispatch("issues.create", {title = "Secret door"})
flux.dispatch("issues.assign", {id = 1, assignee = "ana"})
expect(state().pending, 3, "three committed changes queued; selecting a blueprint is not sent")

deliver()
expect(flux.state("sync").refused[1].reason, "titles may not say secret")
expect(flux.state("issues").allIssues[2].status, "closed", "the refused issue was closed by the compensation")
expect(taken(), "1,3,4", "the receiver took the first, the third, and the compensating close")
expect(state().sent, 3)
expect(state().rejected, 1)

-- Offline: the outbox waits, doubling from 500 ms, and the order is kept.
io.open(inbox .. "/offline", "w"):close()
flux.dispatch("issues.edit", {id = 1, title = "Crack in the east wall"})
deliver()
expect(state().entries[1].last_error, "the inbox is offline")
local wait = state().next_ms
expect(wait >= 250 and wait <= 500, true, "the first wait is between first_ms/2 and first_ms")
os.remove(inbox .. "/offline")
flux.advance(wait)
flux.settle()
expect(state().pending, 0, "delivered once the inbox is back")

-- Undo of a change not sent yet takes it back from the outbox.
flux.dispatch("issues.reopen", {id = 2})
flux.undo()
expect(state().pending, 0, "undone before it was sent: never sent")
