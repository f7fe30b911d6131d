-- Issues on a blueprint, and the list a user sees through the annotation filter.
--
-- Shows: a shared-state store (`issues`, a live query for the selected blueprint's issues) and a
-- store derived from two others (`visibleIssues` = issues that pass `annotationFilter`). The derived
-- store waits for its sources inside the same dispatch, so after every action — an issue created or
-- closed, a filter toggled — the list already follows, in one notification and one undo step.
--
-- The checks are specs; each test starts from the stores as the script's top level left them.
-- Run it alone with `fluxsh run examples/issues.lua`.

-- The ids of the issues in a list, in order: what most checks below compare.
local function ids(list)
  local result = {}
  for i, issue in ipairs(list) do result[i] = issue.id end
  return result
end

local function visible() return ids(flux.state("visibleIssues").issues) end
local function toggle(kind) flux.dispatch("annotationFilter.toggleFilter", {filter = kind}) end

-- Count how often the derived list changes: each action should change it once, not once per source.
local changes = 0
local sub <close> = flux.subscribe("visibleIssues", function(_, previous)
  if previous then changes = changes + 1 end -- the first call is the state now, not a change
end)

-- Three issues on blueprint A-101, the second closed; "me" is the shell's current user.
local function three_issues()
  flux.dispatch("issues.selectBlueprint", {blueprint = "A-101"})
  flux.dispatch("issues.create", {title = "Crack in east wall", assignee = "me"})
  flux.dispatch("issues.create", {title = "Missing fire door"})
  flux.dispatch("issues.create", {title = "Leaking pipe", assignee = "ana"})
  flux.dispatch("issues.close", {id = 2})
end

describe("issues on a blueprint", function()
  -- Issues live on a blueprint: none is selected yet, so there is nowhere to create one.
  it("has nowhere to create one before a blueprint is selected", function()
    expect(flux.state("visibleIssues").blueprint, nil)
    expect_error(function() flux.dispatch("issues.create", {title = "Crack"}) end, "no blueprint selected")
    expect(flux.model("visibleIssues").sections[1].cells[1].title, "No blueprint selected", "empty list")
  end)

  describe("with three issues, one closed", function()
    before_each(function()
      three_issues()
      changes = 0
    end)

    it("numbers them and shows every one with no filter on", function()
      expect(flux.state("visibleIssues").blueprint.title, "Ground floor plan")
      expect(ids(flux.state("issues").issues), {1, 2, 3})
      expect(visible(), {1, 2, 3})
    end)

    it("moves the closed one from Open to Closed", function()
      expect(flux.state("issues").issues[2].status, "closed")
      local model = flux.model("visibleIssues")
      expect(model.sections[2].header, "Open", "second section")
      expect(#model.sections[2].cells, 2, "open rows")
      expect(model.sections[3].cells[1].title, "#2 Missing fire door", "closed row")
      expect_error(function() flux.dispatch("issues.close", {id = 2}) end, "issue #2 is already closed")
    end)

    context("when filtering open issues only", function()
      before_each(function() toggle("issues.status") end)

      it("hides the closed one, and says so in a last, dimmed row", function()
        expect(visible(), {1, 3})
        expect(flux.state("visibleIssues").hiddenCount, 1)
        local model = flux.model("visibleIssues")
        local note = model.sections[#model.sections].cells[1]
        expect({note.title, note.enabled}, {"1 issue hidden by filters", false})
      end)

      -- Groups narrow each other; the derived list changes once per action, not once per source.
      it("narrows further with assigned to me", function()
        toggle("issues.assignedToMe")
        expect(visible(), {1})
        expect(changes, 2, "one change of the derived list per action")
      end)

      -- Changing an issue updates the list in the same dispatch: reopened and assigned to me, #2 shows.
      context("and assigned to me", function()
        before_each(function()
          toggle("issues.assignedToMe")
          flux.dispatch("issues.reopen", {id = 2})
        end)

        it("shows a reopened issue once it is assigned to me", function()
          expect(visible(), {1}, "reopened but unassigned: still hidden")
          flux.dispatch("issues.assign", {id = 2, assignee = "me"})
          expect(visible(), {1, 2})
        end)

        -- Undo takes back the assignment in both stores at once: the derived list was part of the step.
        it("undoes the assignment in both stores at once", function()
          flux.dispatch("issues.assign", {id = 2, assignee = "me"})
          expect(flux.undo(), true, "undo")
          expect(flux.state("issues").issues[2].assignee, nil, "assignee after undo")
          expect(visible(), {1}, "derived list after undo")
          expect(flux.redo(), true, "redo")
          expect(visible(), {1, 2}, "derived list after redo")
        end)
      end)
    end)

    -- An annotation type filter without "Issues" hides every issue; resetting brings them all back.
    it("hides every issue under a type filter without Issues, until reset", function()
      toggle("general.photo")
      expect(visible(), {})
      expect(flux.state("visibleIssues").hiddenCount, 3, "every issue hidden")
      flux.dispatch("annotationFilter.resetFilters")
      expect(visible(), {1, 2, 3})
    end)

    -- Another blueprint has its own issues; ids keep growing, and issues of A-101 are out of reach.
    context("when another blueprint is selected", function()
      before_each(function() flux.dispatch("issues.selectBlueprint", {blueprint = "A-102"}) end)

      it("starts empty and numbers on", function()
        expect(visible(), {})
        flux.dispatch("issues.create", {title = "  Window frame warped  "})
        expect(flux.state("visibleIssues").issues[1],
               {id = 4, blueprint = "A-102", title = "Window frame warped", status = "open"},
               "new issue on A-102 (title trimmed, unassigned)")
      end)

      it("keeps the other blueprint's issues out of reach", function()
        expect_error(function() flux.dispatch("issues.close", {id = 1}) end, "no issue #1 on blueprint A-102")
        expect_error(function() flux.dispatch("issues.selectBlueprint", {blueprint = "Z-999"}) end, "unknown blueprint 'Z-999'")
      end)
    end)
  end)
end)
