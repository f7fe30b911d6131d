-- The annotation filter, driven from Lua.
--
-- Shows: a Lua view provider (flux.view) over a Swift store, actions sent with flux.dispatch, and
-- assertions on the store's state (flux.state) and on what the user sees (flux.model, flux.render).
-- The rules checked are the feature's own:
--   * "Clear" is enabled exactly while a filter is on (state.isFiltering);
--   * turning on an issue filter (status, assignee) turns on the "Issues" type filter too, since
--     filtering issues by status makes no sense while issues are hidden;
--   * resetting a group touches only that group; resetting everything stops filtering.
--
-- Run it alone with `fluxsh run examples/annotation_filter.lua`.

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

-- The view provider: a pure function from the store's state to a table. `state` is read-only; to
-- change anything the script dispatches an action instead.
flux.view("filterList", {store = "annotationFilter", render = function(state)
  -- The lone "hide everything" switch comes first, without a header.
  local sections = {{id = "hideEverything", cells = {filter_row(state.hideEverythingFilter)}}}
  for _, group in ipairs(groups) do
    local cells = {}
    for _, filter in ipairs(state[group.field]) do cells[#cells + 1] = filter_row(filter) end
    sections[#sections + 1] = {id = group.id, header = group.header, height = 28, cells = cells}
  end
  -- The seed's toolbar button, as a last row: a disabled row cannot be tapped.
  sections[#sections + 1] = {id = "actions", cells = {{id = "clear", title = "Clear", enabled = state.isFiltering}}}
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
  return row(flux.model("filterList"), "actions", "clear").enabled
end

local function toggle(kind) flux.dispatch("annotationFilter.toggleFilter", {filter = kind}) end

-- At rest: nothing filters, so "Clear" is disabled.
expect(flux.state("annotationFilter").isFiltering, false, "isFiltering at rest")
expect(clear_enabled(), false, "Clear at rest")

-- Toggling a filter turns it on, checks its row and enables "Clear".
toggle("general.photo")
expect(enabled("general.photo"), true, "photo filter")
expect(flux.state("annotationFilter").isFiltering, true, "isFiltering after a toggle")
expect(row(flux.model("filterList"), "general", "general.photo").accessory, "checkmark", "photo row")
expect(clear_enabled(), true, "Clear while filtering")

-- Toggling it again turns it off, and with nothing else on, filtering stops.
toggle("general.photo")
expect(flux.state("annotationFilter").isFiltering, false, "isFiltering after toggling back")
expect(clear_enabled(), false, "Clear after toggling back")

-- The issue rule: "Open issues only" turns the "Issues" type filter on with it.
toggle("issues.status")
expect(enabled("issues.status"), true, "status filter")
expect(enabled("general.issueType"), true, "issue type follows the status filter")
expect(row(flux.model("filterList"), "general", "general.issueType").accessory, "checkmark", "issue type row")

-- ...whichever way the issue filter goes: with the type filter off, turning the status filter off
-- turns the type filter back on, so the issue filters never act on hidden issues.
toggle("general.issueType")
expect(enabled("general.issueType"), false, "issue type turned off by hand")
toggle("issues.status")
expect(enabled("issues.status"), false, "status filter off again")
expect(enabled("general.issueType"), true, "issue type back on after an issue filter toggle")

-- Resetting one group touches only that group.
toggle("shareStatus.shared")
flux.dispatch("annotationFilter.resetFiltersInGroup", {group = "general"})
expect(enabled("general.issueType"), false, "general group reset")
expect(enabled("shareStatus.shared"), true, "other groups untouched by a group reset")
expect(clear_enabled(), true, "Clear while a group still filters")

-- "Clear" resets everything: no filter on, filtering stops, the button disables itself.
flux.dispatch("annotationFilter.resetFilters")
local state = flux.state("annotationFilter")
expect(state.isFiltering, false, "isFiltering after reset")
for _, field in ipairs{"shareStatusFilters", "issueFilters", "generalFilters"} do
  for _, filter in ipairs(state[field]) do expect(filter.enabled, false, filter.id .. " after reset") end
end
expect(clear_enabled(), false, "Clear after reset")

-- Entering a group shows its details; leaving goes back to the overview (no group selected).
flux.dispatch("annotationFilter.enterFilterGroup", {group = "issues"})
expect(flux.state("annotationFilter").selectedFilterGroup, "issues", "selected group")
flux.dispatch("annotationFilter.leaveFilterGroup")
expect(flux.state("annotationFilter").selectedFilterGroup, nil, "selected group after leaving")

-- A filter id that does not exist is refused with the list of valid ones, and changes nothing.
local before = flux.state("annotationFilter")
expect_error(function() toggle("issues.colour") end, "unknown filter 'issues.colour'")
expect(flux.state("annotationFilter"), before, "state after a refused toggle")

-- The Lua view agrees with the shipped Swift view on every filter row.
toggle("issues.assignedToMe")
local swift, lua = flux.model("annotationFilter"), flux.model("filterList")
for i, section in ipairs(swift.sections) do
  expect(lua.sections[i].cells, section.cells, "rows of section " .. section.id)
  expect(lua.sections[i].header, section.header, "header of section " .. section.id)
end

-- The rendered text is what a user reads: checked filters and the section headers.
local text = flux.render("filterList", 60)
assert(text:find("Assigned to me", 1, true), "the rendered list names the filter")
assert(text:find("Share Status", 1, true), "the rendered list shows the group headers")
