-- Live views: what `:open` shows, driven by keys, without a terminal (`flux.pilot`).
--
-- Shows: cells that carry an action and its payload as data, a view's extra `keys`, the cursor
-- skipping disabled rows and following its row across changes, and the screen exactly as a terminal
-- of that size would show it. `:open annotationFilter` (or `fluxsh open ticTacToe`) shows the same
-- screens on the terminal.
--
-- Run it alone with `fluxsh test examples/live_views.lua`.

-- The annotation filter as the seed's popover: Down to "Shared with team", Enter toggles it.
local ui = flux.pilot("annotationFilter", {width = 44, height = 12})
ui:press("down"):press("enter")
expect(ui:screen(), [[
annotationFilter
   Hide everything

Share Status
▸  Shared with team ✓
   Private

Issues
   Assigned to me
   Open issues only
annotationFilter.toggleFilter {filter = "sh…
↑↓ move  ⏎ run  u undo  ^R redo  ? keys  q…]])
expect(flux.state("annotationFilter").isFiltering, true)
ui:press("u")                                   -- undo, as :undo
expect(flux.state("annotationFilter").isFiltering, false)
ui:press("ctrl+r")                              -- redo
expect(flux.state("annotationFilter").isFiltering, true)
ui:close()

-- A group row enters the group's details, as the seed's popover does: the way back, the group's
-- filters, and its reset ("Reset Issues" is disabled while none of them is on, so the cursor skips it).
local groups = flux.pilot("annotationFilter", {width = 44, height = 12})
groups:press("end"):press("up"):press("up"):press("enter")   -- "Issues ›" under "Filter groups"
expect(flux.state("annotationFilter").selectedFilterGroup, "issues")
expect(groups:screen(), [[
annotationFilter
   Back to all filters

Issues
   Assigned to me
▸  Open issues only
   Unassigned
   Reset Issues


annotationFilter.enterFilterGroup {group = …
↑↓ move  ⏎ run  u undo  ^R redo  ? keys  q…]])
groups:press("home"):press("enter")                          -- "Back to all filters"
expect(flux.state("annotationFilter").selectedFilterGroup, nil)
groups:close()

-- Tic-tac-toe by keys: Right picks the square within a row, Down keeps the column.
local game = flux.pilot("ticTacToe", {width = 40, height = 8})
game:press("right"):press("enter")              -- X in the middle of the top row
game:press("down"):press("enter")               -- O right under it
game:press("left"):press("up"):press("enter")   -- X top left
expect(game:screen(), [[
ticTacToe

O's turn
▸ [X]X .  0 1 2
   . O .  3 4 5
   . . .  6 7 8
ticTacToe.placeToken {index = 0} → 1 ro…
↑↓ move  ←→ choose  ⏎ run  u undo  ^R …]])
game:press("enter")                             -- that square is taken: the status says so, nothing changes
expect(game:status():find("taken") ~= nil or game:status():find("occupied") ~= nil, true, game:status())
expect(flux.state("ticTacToe").board[1], "X")
game:close()

-- A Lua view: cells with actions, a disabled row the cursor skips, and a key of the view's own.
flux.store{
  name = "chores",
  state = {items = {{id = 1, title = "Write docs", done = false}, {id = 2, title = "Ship", done = false}}},
  actions = {["chores.toggle"] = {id = "integer"}, ["chores.remove"] = {id = "integer"}},
  on = {
    ["chores.toggle"] = function(state, action)
      for _, item in ipairs(state.items) do
        if item.id == action.id then item.done = not item.done end
      end
    end,
    ["chores.remove"] = function(state, action)
      for i, item in ipairs(state.items) do
        if item.id == action.id then table.remove(state.items, i) return end
      end
    end,
  },
}
flux.view("chores", {
  store = "chores",
  keys = {d = "chores.remove"},
  render = function(state)
    local cells = {{id = "note", title = "Enter toggles, d removes", enabled = false}}
    for _, item in ipairs(state.items) do
      cells[#cells + 1] = {id = tostring(item.id), title = item.title,
        accessory = item.done and "checkmark" or "none", action = "chores.toggle", payload = {id = item.id}}
    end
    return {sections = {{header = "Todo", cells = cells}}}
  end,
})
local todo = flux.pilot("chores", {width = 30, height = 7})
todo:press("enter")                             -- the cursor started on "Write docs", past the note
expect(flux.state("chores").items[1].done, true)
todo:press("d")                                 -- removes "Write docs": the cursor passes to "Ship"
expect(#flux.state("chores").items, 1)
expect(todo:screen(), [[
chores
Todo
   Enter toggles, d removes
▸  Ship

chores.remove {id = 1} → 1 ro…
↑↓ move  ⏎ run  d chores.rem…]])
todo:close()

-- The mouse (where the terminal reports it): a click selects a row, a click on the selected row runs it.
-- Lines count from 0 at the top: the title, the section header, the note, then the rows.
flux.dispatch("chores.toggle", {id = 2})          -- "Ship" done
local clicks = flux.pilot("chores", {width = 30, height = 7})
clicks:click(2, 5)                                -- the note: disabled, nothing happens
expect(flux.state("chores").items[1].done, true, "a click on a disabled row does nothing")
clicks:click(3, 5)                                -- "Ship", already under the cursor: runs chores.toggle
expect(flux.state("chores").items[1].done, false, "a click on the selected row runs its action")
clicks:close()

-- A key naming an action nobody defined is an error at flux.view, naming it.
expect_error(function()
  flux.view("broken", {store = "chores", keys = {x = "chores.explode"}, render = function() return {} end})
end, "chores.explode")
