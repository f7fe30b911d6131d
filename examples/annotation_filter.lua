-- The annotation filter, driven from Lua.
--
-- Shows: a Lua view provider (flux.view) over a Swift store, actions sent with flux.dispatch, and
-- specs in the behavioural style (describe, before_each, it) asserting the store's state (flux.state),
-- what the user sees (flux.model, flux.render) and, with flux.test_store, every change an action makes.
-- Each `it` starts from the stores as its before_each calls left them: stores are reset between tests.
-- The rules checked are the feature's own:
--   * "Clear" is enabled exactly while a filter is on (state.isFiltering);
--   * turning on an issue filter (status, assignee) turns on the "Issues" type filter too, since
--     filtering issues by status makes no sense while issues are hidden;
--   * resetting a group touches only that group; resetting everything stops filtering.
--
-- Run it alone with `fluxsh run examples/annotation_filter.lua` (or `fluxsh test -v examples/annotation_filter.lua`).

-- The groups as the store keeps them: the state field holding each group's filters, and its header.
local groups = {
  {id = "shareStatus", field = "shareStatusFilters", header = "Share Status"},
  {id = "issues",      field = "issueFilters",       header = "Issues"},
  {id = "general",     field = "generalFilters",     header = "General"},
}

-- One row per filter, checked when the filter is on.
local function filter_row(filter)
  -- Choosing the row in a live view (`:open filterList`) toggles its filter.
  return {id = filter.id, title = filter.title, accessory = filter.enabled and "checkmark" or "none",
          action = "annotationFilter.toggleFilter", payload = {filter = filter.id}}
end

-- A group's details, shown while the state selects it: the way back, its filters, and its reset.
local function details(state, group)
  local cells, on = {}, false
  for _, filter in ipairs(state[group.field]) do
    cells[#cells + 1] = filter_row(filter)
    on = on or filter.enabled
  end
  cells[#cells + 1] = {id = "resetFiltersInGroup", title = "Reset " .. group.header, enabled = on,
                       action = "annotationFilter.resetFiltersInGroup", payload = {group = group.id}}
  return {sections = {
    {id = "back", cells = {{id = "leaveFilterGroup", title = "Back to all filters",
                            action = "annotationFilter.leaveFilterGroup"}}},
    {id = group.id, header = group.header, height = 28, cells = cells},
  }}
end

-- The view provider: a pure function from the store's state to a table. `state` is read-only; to
-- change anything the script dispatches an action instead.
flux.view("filterList", {store = "annotationFilter", render = function(state)
  for _, group in ipairs(groups) do
    if state.selectedFilterGroup == group.id then return details(state, group) end
  end
  -- The lone "hide everything" switch comes first, without a header.
  local sections = {{id = "hideEverything", cells = {filter_row(state.hideEverythingFilter)}}}
  local entries = {}
  for _, group in ipairs(groups) do
    local cells = {}
    for _, filter in ipairs(state[group.field]) do cells[#cells + 1] = filter_row(filter) end
    sections[#sections + 1] = {id = group.id, header = group.header, height = 28, cells = cells}
    entries[#entries + 1] = {id = "group." .. group.id, title = group.header, accessory = "disclosure",
                             action = "annotationFilter.enterFilterGroup", payload = {group = group.id}}
  end
  -- The seed's toolbar button, as a last row: a disabled row cannot be chosen.
  entries[#entries + 1] = {id = "resetFilters", title = "Clear filters", enabled = state.isFiltering,
                           action = "annotationFilter.resetFilters"}
  sections[#sections + 1] = {id = "groups", header = "Filter groups", height = 28, cells = entries}
  return {sections = sections}
end})

-- Small readers over the state and the model, so the checks below read as sentences.
local function enabled(kind)
  local state = flux.state("annotationFilter")
  for _, field in ipairs{"shareStatusFilters", "issueFilters", "generalFilters"} do
    for _, filter in ipairs(state[field]) do
      if filter.id == kind then return filter.enabled end
    end
  end
  if kind == "hideEverything" then return state.hideEverythingFilter.enabled end
  error("no filter " .. kind)
end

local function row(model, section_id, row_id)
  for _, section in ipairs(model.sections) do
    if section.id == section_id then
      for _, cell in ipairs(section.cells) do
        if cell.id == row_id then return cell end
      end
    end
  end
  error("no row " .. section_id .. "/" .. row_id)
end

local function clear_enabled()
  return row(flux.model("filterList"), "groups", "resetFilters").enabled
end

local function toggle(kind) flux.dispatch("annotationFilter.toggleFilter", {filter = kind}) end

describe("the annotation filter at rest", function()
  it("does not filter", function()
    expect(flux.state("annotationFilter").isFiltering, false)
  end)

  it("disables Clear", function()
    expect(clear_enabled(), false)
  end)
end)

describe("toggling a filter", function()
  before_each(function() toggle("general.photo") end)

  it("toggles the selected filter", function()
    expect(enabled("general.photo"), true)
    expect(row(flux.model("filterList"), "general", "general.photo").accessory, "checkmark", "photo row")
  end)

  it("enables filtering mode", function()
    expect(flux.state("annotationFilter").isFiltering, true)
    expect(clear_enabled(), true, "Clear while filtering")
  end)

  context("when toggling it again", function()
    before_each(function() toggle("general.photo") end)

    it("stops filtering, with nothing else on", function()
      expect(flux.state("annotationFilter").isFiltering, false)
      expect(clear_enabled(), false, "Clear after toggling back")
    end)
  end)

  context("when subsequently resetting filters", function()
    before_each(function() flux.dispatch("annotationFilter.resetFilters") end)

    it("deactivates previously active filters and stops filter mode", function()
      local state = flux.state("annotationFilter")
      expect(state.isFiltering, false)
      for _, field in ipairs{"shareStatusFilters", "issueFilters", "generalFilters"} do
        for _, filter in ipairs(state[field]) do expect(filter.enabled, false, filter.id) end
      end
      expect(clear_enabled(), false, "Clear after reset")
    end)
  end)
end)

describe("an issue filter", function()
  -- Filtering issues by status makes no sense while issues are hidden.
  it("turns the Issues type filter on with it", function()
    toggle("issues.status")
    expect(enabled("issues.status"), true)
    expect(enabled("general.issueType"), true)
    expect(row(flux.model("filterList"), "general", "general.issueType").accessory, "checkmark", "issue type row")
  end)

  it("turns the type filter back on whichever way it goes", function()
    toggle("issues.status")
    toggle("general.issueType")
    expect(enabled("general.issueType"), false, "issue type turned off by hand")
    toggle("issues.status")
    expect(enabled("issues.status"), false, "status filter off again")
    expect(enabled("general.issueType"), true, "issue type back on")
  end)

  -- Every change the action makes, stated: any other change, or a missing one, fails with the diff.
  it("changes exactly the status filter, the type filter and filtering mode", function()
    local t = flux.test_store("annotationFilter")
    t:dispatch("annotationFilter.toggleFilter", {filter = "issues.status"}, function(s)
      s.issueFilters[2].enabled = true       -- "Open issues only"
      s.generalFilters[1].enabled = true     -- "Issues"
      s.isFiltering = true
    end)
  end)
end)

describe("resetting one group", function()
  before_each(function()
    toggle("issues.status")
    toggle("shareStatus.shared")
    flux.dispatch("annotationFilter.resetFiltersInGroup", {group = "general"})
  end)

  it("resets that group's filters", function()
    expect(enabled("general.issueType"), false)
  end)

  it("leaves the other groups as they were", function()
    expect(enabled("shareStatus.shared"), true)
    expect(clear_enabled(), true, "Clear while a group still filters")
  end)
end)

describe("entering a filter group", function()
  before_each(function() flux.dispatch("annotationFilter.enterFilterGroup", {group = "issues"}) end)

  it("selects the group, to show its details", function()
    expect(flux.state("annotationFilter").selectedFilterGroup, "issues")
  end)

  it("shows the way back, the group's filters and its reset, as the shipped Swift view does", function()
    local model = flux.model("filterList")
    expect(#model.sections, 2)
    expect(model.sections[2].header, "Issues")
    expect(flux.model("filterList"), flux.model("annotationFilter"))
  end)

  it("goes back to the overview when leaving", function()
    flux.dispatch("annotationFilter.leaveFilterGroup")
    expect(flux.state("annotationFilter").selectedFilterGroup, nil)
  end)
end)

describe("an unknown filter", function()
  it("is refused with the valid ones named, and changes nothing", function()
    local before = flux.state("annotationFilter")
    expect_error(function() toggle("issues.colour") end, "unknown filter 'issues.colour'")
    expect(flux.state("annotationFilter"), before)
  end)
end)

describe("the Lua view", function()
  before_each(function() toggle("issues.assignedToMe") end)

  it("agrees with the shipped Swift view on every filter row", function()
    local swift, lua = flux.model("annotationFilter"), flux.model("filterList")
    for i, section in ipairs(swift.sections) do
      expect(lua.sections[i].cells, section.cells, "rows of section " .. section.id)
      expect(lua.sections[i].header, section.header, "header of section " .. section.id)
    end
  end)

  -- The rendered text is what a user reads: checked filters and the section headers.
  it("renders the checked filters under their headers", function()
    local text = flux.render("filterList", 60)
    assert(text:find("Assigned to me", 1, true), "the rendered list names the filter")
    assert(text:find("Share Status", 1, true), "the rendered list shows the group headers")
  end)
end)
