-- A to-do list written only in Lua: store, actions, view provider and a subscriber that reacts.
--
-- Shows: `flux.store{…}` (a handler changes the draft of the state it gets, in place, or returns a new
-- one; an error in it refuses the action; `actions` declares payload fields), the store's actions dispatched by name like any Swift store's, two stores
-- handling one action as a transaction (when one refuses it, the other's change is rolled back),
-- a `flux.view` view provider, and a subscriber that keeps a count and dispatches a follow-up
-- action — queued by the dispatcher and run right after the action it reacts to.
--
-- The checks are specs (describe, before_each, it): each test starts from the stores as the script's
-- top level left them. Run it alone with `fluxsh run examples/todo.lua`.

-- The index of item `id` in `state.items`, or an error the caller sees as the dispatch's error.
local function find(state, id)
  for i, item in ipairs(state.items) do
    if item.id == id then return i end
  end
  error("no todo #" .. tostring(id), 0)
end

-- A log of the list's activity. It counts `todo.add` too, and hears it before the todo store
-- (stores hear an action in the order they were defined), so when the todo store refuses an item
-- the count must be rolled back: a dispatch is all or nothing.
flux.store{
  name = "todoLog",
  state = {added = 0, messages = {}},
  on = {
    ["todo.add"] = function(state)
      state.added = state.added + 1
      return state
    end,
    ["todoLog.note"] = function(state, action)
      table.insert(state.messages, action.text)
      return state
    end,
  },
}

-- 1. The store: its state, and one handler per action. Handlers never touch anything else.
flux.store{
  name = "todo",
  state = {items = {}, next_id = 1},
  actions = {["todo.add"] = {title = "string"}, ["todo.toggle"] = {id = "integer"}, ["todo.remove"] = {id = "integer"}},
  on = {
    ["todo.add"] = function(state, action)
      local title = type(action.title) == "string" and action.title:match("^%s*(.-)%s*$") or ""
      if title == "" then error("a todo needs a title", 0) end
      table.insert(state.items, {id = state.next_id, title = title, done = false})
      state.next_id = state.next_id + 1
    end,
    ["todo.toggle"] = function(state, action)
      local item = state.items[find(state, action.id)]
      item.done = not item.done
      return state
    end,
    ["todo.remove"] = function(state, action)
      table.remove(state.items, find(state, action.id))
      return state
    end,
    ["todo.clearDone"] = function(state)
      local kept = {}
      for _, item in ipairs(state.items) do
        if not item.done then kept[#kept + 1] = item end
      end
      state.items = kept
      return state
    end,
  },
}

-- 2. The view provider: open items first, then done ones with a check mark. Rows are identified by
-- the item's id, so a table watching it sees a ticked-off item move to "Done", not vanish and reappear.
flux.view("todo", {store = "todo", render = function(state)
  local open, done = {}, {}
  for _, item in ipairs(state.items) do
    local cells = item.done and done or open
    cells[#cells + 1] = {id = tostring(item.id), title = item.title,
                         accessory = item.done and "checkmark" or "none"}
  end
  return {sections = {
    {id = "open", header = ("To do (%d)"):format(#open), height = 28, cells = open},
    {id = "done", header = "Done", height = 28, cells = done},
  }}
end})

-- 3. A subscriber that reacts: it counts the open items, and when the last one is done it notes
-- it in the log. Subscribers run after the stores changed; an action dispatched from one is queued
-- and runs once the current dispatch is over.
local remaining
local sub <close> = flux.subscribe("todo", function(state, previous)
  local count = 0
  for _, item in ipairs(state.items) do
    if not item.done then count = count + 1 end
  end
  if previous and remaining > 0 and count == 0 and #state.items > 0 then
    flux.dispatch("todoLog.note", {text = "all done"})
  end
  remaining = count
end)

local function add(...)
  for _, title in ipairs{...} do flux.dispatch("todo.add", {title = title}) end
end

describe("a to-do list", function()
  -- The store's actions are known by name, like those of the Swift stores.
  it("knows its actions by name", function()
    expect(flux.actions("todo"), {"todo.add", "todo.clearDone", "todo.remove", "todo.toggle"})
  end)

  describe("adding items", function()
    before_each(function()
      add("Buy milk", "  Write report ")
      flux.dispatch{type = "todo.add", title = "Call plumber"}
    end)

    it("keeps them open, the subscriber counting them", function()
      expect(remaining, 3)
      expect(flux.state("todo").items[2], {id = 2, title = "Write report", done = false}, "title trimmed")
    end)

    -- A refused action changes nothing, and the caller gets the handler's message.
    it("refuses an empty title or an unknown id, changing nothing", function()
      local before = flux.state("todo")
      expect_error(function() flux.dispatch("todo.add", {title = "   "}) end, "a todo needs a title")
      expect_error(function() flux.dispatch("todo.toggle", {id = 42}) end, "no todo #42")
      expect(flux.state("todo"), before)
      expect(flux.state("todoLog").added, 3, "the log's count was rolled back with the refused item")
    end)

    -- Declared payload fields are checked like a Swift action's.
    it("checks the payload's declared fields", function()
      expect_error(function() flux.dispatch("todo.add", {title = "x", colour = "red"}) end, "unknown field")
      expect_error(function() flux.dispatch("todo.toggle", {id = "one"}) end, "'id'")
    end)

    context("when two are ticked off", function()
      before_each(function()
        flux.dispatch("todo.toggle", {id = 1})
        flux.dispatch("todo.toggle", {id = 3})
      end)

      it("moves them to Done, checked", function()
        expect(remaining, 1)
        local model = flux.model("todo")
        expect(model.sections[1].header, "To do (1)", "open section header")
        expect(model.sections[1].cells[1].title, "Write report", "the one open item")
        expect({model.sections[2].cells[1].title, model.sections[2].cells[2].title}, {"Buy milk", "Call plumber"})
        expect(model.sections[2].cells[1].accessory, "checkmark", "a done item is checked")
        expect(flux.state("todoLog").messages, {}, "nothing to report yet")
      end)

      -- Finishing the last one makes the subscriber dispatch its follow-up, which has run by the time
      -- the dispatch returns; the log's test store receives it.
      it("notes 'all done' when the last one is done", function()
        local log = flux.test_store("todoLog")
        log:dispatch("todo.toggle", {id = 2})
        log:receive("todoLog.note", {text = "all done"}, function(s) s.messages = {"all done"} end)
        expect(remaining, 0)
      end)

      -- Undo goes back one action at a time: the follow-up was an action of its own, so it goes first.
      it("undoes the follow-up first, then the toggle", function()
        flux.dispatch("todo.toggle", {id = 2})
        flux.undo()
        expect(flux.state("todoLog").messages, {}, "undo takes back the follow-up")
        flux.undo()
        expect(remaining, 1, "undo takes back the last toggle")
      end)

      -- Clearing done items leaves the open one; the rendered list shows it.
      it("clears the done ones", function()
        local t = flux.test_store("todo")
        t:dispatch("todo.clearDone", function(s) s.items = {s.items[2]} end)
        local text = flux.render("todo", 40)
        assert(text:find("To do (1)", 1, true) and text:find("Write report", 1, true), text)
        assert(not text:find("Buy milk", 1, true), "a cleared item is gone from the list")
      end)
    end)
  end)

  it("is empty again once its last item is removed", function()
    add("Buy milk")
    flux.dispatch("todo.remove", {id = 1})
    expect(flux.model("todo").sections[1], {id = "open", header = "To do (0)", height = 28, cells = {}})
  end)

  -- Two todos with the same title are two rows: cells are identified by the item's id, not the title.
  it("shows two todos sharing a title as two rows", function()
    add("Buy milk", "Buy milk")
    local cells = flux.model("todo").sections[1].cells
    expect({#cells, cells[1].title, cells[2].title}, {2, "Buy milk", "Buy milk"})
    assert(cells[1].id ~= cells[2].id, "cell ids are unique")
  end)
end)
