-- Watching a table change: the diffs a series of actions produces.
--
-- Shows: `flux.watch(view, fn)`, which calls `fn(diff)` after every change of a view's table with
-- what a partial UI update would do — rows inserted, deleted, updated (same row, new content) and
-- moved (same row, new place) — as counts and as a patch (`diff.text`: `+`, `-`, `~`, `>` lines).
-- Rows are matched by id, so closing an issue is a move from "Open" to "Closed", not a delete and an
-- insert. A change of state the table does not show produces no diff at all.
--
-- Run it alone with `fluxsh run examples/watch.lua`.

-- Every diff the watched view produces, in order.
local diffs = {}
local watcher = flux.watch("visibleIssues", function(diff) diffs[#diffs + 1] = diff end)

-- Runs one action and returns the one diff it produced (nil when the table did not change).
local function diff_of(action, payload)
  local count = #diffs
  flux.dispatch(action, payload)
  assert(#diffs <= count + 1, "one action, at most one diff")
  return diffs[count + 1]
end

-- The row counts of a diff, to compare in one go.
local function rows(diff)
  assert(diff, "expected a diff, but the table did not change")
  return {inserted = diff.inserted, deleted = diff.deleted, updated = diff.updated, moved = diff.moved}
end

-- Checks the patch line by line. The patch is written for the terminal: arrows are "→" in a UTF-8
-- locale and "->" elsewhere (read as "->" here), and a line longer than the terminal is wide is cut
-- with an ellipsis — so a cut line only has to be the start of the expected one.
local function expect_patch(diff, expected, what)
  local got = {}
  for line in diff.text:gmatch("[^\n]+") do got[#got + 1] = (line:gsub("→", "->")) end
  for i, line in ipairs(got) do
    local start = line:match("^(.-)…$") or line:match("^(.-)%.%.%.$")
    if start and expected[i] and expected[i]:sub(1, #start) == start then got[i] = expected[i] end
  end
  expect(got, expected, what)
end

-- Selecting a blueprint replaces the placeholder row with the blueprint's (empty) sections.
local diff = diff_of("issues.selectBlueprint", {blueprint = "A-101"})
expect(rows(diff), {inserted = 0, deleted = 1, updated = 0, moved = 0}, "select: rows")
expect(diff.sections_inserted, 2, "select: the Open and Closed sections appear")

-- Creating issues inserts rows into "Open".
diff = diff_of("issues.create", {title = "Crack in east wall"})
expect(rows(diff), {inserted = 1, deleted = 0, updated = 0, moved = 0}, "create: rows")
expect_patch(diff, {"+ Open: #1 Crack in east wall"}, "create: patch")
diff_of("issues.create", {title = "Missing fire door", assignee = "ana"})

-- Closing an issue moves its row to "Closed": the same row (same id) in another section.
diff = diff_of("issues.close", {id = 1})
expect(rows(diff), {inserted = 0, deleted = 0, updated = 0, moved = 1}, "close: rows")
expect_patch(diff, {"> Closed: #1 Crack in east wall (from Open)"}, "close: patch")

-- Renaming one updates its row in place.
diff = diff_of("issues.edit", {id = 2, title = "No fire door"})
expect(rows(diff), {inserted = 0, deleted = 0, updated = 1, moved = 0}, "edit: rows")
expect_patch(diff, {"~ Open: #2 No fire door (title #2 Missing fire door -> #2 No fire door)"}, "edit: patch")

-- A filter is an action of another store, yet the derived list changes with it: "Open issues only"
-- deletes the closed row and adds the note saying one issue is hidden (a new section).
diff = diff_of("annotationFilter.toggleFilter", {filter = "issues.status"})
expect(rows(diff), {inserted = 0, deleted = 1, updated = 0, moved = 0}, "filter: rows")
expect(diff.sections_inserted, 1, "filter: the note's section")
expect_patch(diff, {"+ section hidden (1 row)", "- Closed: #1 Crack in east wall"}, "filter: patch")

-- Entering a filter group changes the filter store but not the list: no diff.
expect(diff_of("annotationFilter.enterFilterGroup", {group = "issues"}), nil, "a change the list does not show")

-- Reopening the hidden issue brings its row back (into "Open") and the note goes.
diff = diff_of("issues.reopen", {id = 1})
expect(rows(diff), {inserted = 1, deleted = 0, updated = 0, moved = 0}, "reopen: rows")
expect(diff.sections_deleted, 1, "reopen: the note's section goes")

-- Undo is a change like any other: the watcher sees the reverse of the last action.
local count = #diffs
flux.undo()
expect(#diffs, count + 1, "undo produces a diff")
expect(rows(diffs[#diffs]), {inserted = 0, deleted = 1, updated = 0, moved = 0}, "undo: rows")

-- After cancel the watcher hears nothing more.
watcher:cancel()
count = #diffs
flux.dispatch("issues.create", {title = "Loose handrail"})
expect(#diffs, count, "no diff after cancel")

-- The same works for any view. A tic-tac-toe move updates one board row, and the header — the
-- instruction — changes with it in the same diff.
local moves = {}
local board <close> = flux.watch("ticTacToe", function(d) moves[#moves + 1] = d end)
flux.dispatch("ticTacToe.placeToken", {index = 4})
expect(#moves, 1, "one diff per move")
expect(rows(moves[1]), {inserted = 0, deleted = 0, updated = 1, moved = 0}, "move: rows")
expect_patch(moves[1], {"~ section O's turn (header X's turn -> O's turn)",
                         "~ O's turn: . X . (title . . . -> . X .)"}, "move: patch")
