-- Watching a table change: the diffs a series of actions produces.
--
-- Shows: `flux.watch(view, fn)`, which calls `fn(diff)` after every change of a view's table with
-- what a partial UI update would do — rows inserted, deleted, updated (same row, new content) and
-- moved (same row, new place) — as counts and as a patch (`diff.text`: `+`, `-`, `~`, `>` lines).
-- Rows are matched by id, so closing an issue is a move from "Open" to "Closed", not a delete and an
-- insert. A change of state the table does not show produces no diff at all.
--
-- The checks are specs; each test starts from the stores as the script's top level left them.
-- Run it alone with `fluxsh run examples/watch.lua`.

-- Every diff the watched view produces, in order.
local diffs = {}
local watcher <close> = flux.watch("visibleIssues", function(diff) diffs[#diffs + 1] = diff end)

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

local function toggle_status() flux.dispatch("annotationFilter.toggleFilter", {filter = "issues.status"}) end

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

describe("watching the visible issues", function()
  -- Selecting a blueprint replaces the placeholder row with the blueprint's (empty) sections.
  it("replaces the placeholder row when a blueprint is selected", function()
    local diff = diff_of("issues.selectBlueprint", {blueprint = "A-101"})
    expect(rows(diff), {inserted = 0, deleted = 1, updated = 0, moved = 0})
    expect(diff.sections_inserted, 2, "the Open and Closed sections appear")
  end)

  context("with a blueprint selected", function()
    before_each(function() flux.dispatch("issues.selectBlueprint", {blueprint = "A-101"}) end)

    it("inserts a row into Open for a new issue", function()
      local diff = diff_of("issues.create", {title = "Crack in east wall"})
      expect(rows(diff), {inserted = 1, deleted = 0, updated = 0, moved = 0})
      expect_patch(diff, {"+ Open: #1 Crack in east wall"})
    end)

    context("and two issues", function()
      before_each(function()
        flux.dispatch("issues.create", {title = "Crack in east wall"})
        flux.dispatch("issues.create", {title = "Missing fire door", assignee = "ana"})
      end)

      -- Closing an issue moves its row to "Closed": the same row (same id) in another section.
      it("moves a closed issue's row to Closed", function()
        local diff = diff_of("issues.close", {id = 1})
        expect(rows(diff), {inserted = 0, deleted = 0, updated = 0, moved = 1})
        expect_patch(diff, {"> Closed: #1 Crack in east wall (from Open)"})
      end)

      it("updates a renamed issue's row in place", function()
        local diff = diff_of("issues.edit", {id = 2, title = "No fire door"})
        expect(rows(diff), {inserted = 0, deleted = 0, updated = 1, moved = 0})
        expect_patch(diff, {"~ Open: #2 No fire door (title #2 Missing fire door -> #2 No fire door)"})
      end)

      context("when the first is closed", function()
        before_each(function() flux.dispatch("issues.close", {id = 1}) end)

        -- A filter is an action of another store, yet the derived list changes with it: "Open issues
        -- only" deletes the closed row and adds the note saying one issue is hidden (a new section).
        it("deletes the closed row and adds the note under Open issues only", function()
          local diff = diff_of("annotationFilter.toggleFilter", {filter = "issues.status"})
          expect(rows(diff), {inserted = 0, deleted = 1, updated = 0, moved = 0})
          expect(diff.sections_inserted, 1, "the note's section")
          expect_patch(diff, {"+ section hidden (1 row)", "- Closed: #1 Crack in east wall"})
        end)

        -- Entering a filter group changes the filter store but not the list: no diff.
        it("produces no diff for a change the list does not show", function()
          expect(diff_of("annotationFilter.enterFilterGroup", {group = "issues"}), nil)
        end)

        context("and hidden by the filter", function()
          before_each(function() toggle_status() end)

          -- Reopening the hidden issue brings its row back (into "Open") and the note goes.
          it("brings a reopened issue back and removes the note", function()
            local diff = diff_of("issues.reopen", {id = 1})
            expect(rows(diff), {inserted = 1, deleted = 0, updated = 0, moved = 0})
            expect(diff.sections_deleted, 1, "the note's section goes")
          end)

          -- Undo is a change like any other: the watcher sees the reverse of the last action.
          it("sees undo as a change like any other", function()
            flux.dispatch("issues.reopen", {id = 1})
            local count = #diffs
            flux.undo()
            expect(#diffs, count + 1, "undo produces a diff")
            expect(rows(diffs[#diffs]), {inserted = 0, deleted = 1, updated = 0, moved = 0})
          end)
        end)
      end)
    end)
  end)

  -- After cancel the watcher hears nothing more.
  it("hears nothing after cancel", function()
    local heard = 0
    local own = flux.watch("visibleIssues", function() heard = heard + 1 end)
    own:cancel()
    flux.dispatch("issues.selectBlueprint", {blueprint = "A-101"})
    flux.dispatch("issues.create", {title = "Loose handrail"})
    expect(heard, 0)
  end)
end)

-- The same works for any view. A tic-tac-toe move updates one board row, and the header — the
-- instruction — changes with it in the same diff.
describe("watching tic-tac-toe", function()
  it("updates one board row and the header in one diff", function()
    local moves = {}
    local board <close> = flux.watch("ticTacToe", function(d) moves[#moves + 1] = d end)
    flux.dispatch("ticTacToe.placeToken", {index = 4})
    expect(#moves, 1, "one diff per move")
    expect(rows(moves[1]), {inserted = 0, deleted = 0, updated = 1, moved = 0})
    expect_patch(moves[1], {"~ section O's turn (header X's turn -> O's turn)",
                            "~ O's turn: . X . (title . . . -> . X .)"})
  end)
end)
