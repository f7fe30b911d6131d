/// The part of the `flux` module written in Lua: how a Lua store's handler changes a state that no script
/// can change.
///
/// Published states are frozen tables no script ever holds: subscribers and views get read-only views of
/// them (`flux_pushview`), `flux.state` a copy. A handler gets a draft of the state: a table that reads
/// through to the frozen one and copies a level only when the handler writes to it (copy on write), so
/// an action that changes one field copies one table, not the whole state. What the handler returns is
/// frozen: drafts become the tables they copied (untouched parts shared with the old state), tables the
/// handler made are copied (the script keeps its own), and nothing nests deeper than the limit. A draft
/// used after its handler returned is an error; undo and rollback keep references to frozen states.
enum FluxPrelude {
    static let source = #"""
    local setmetatable, getmetatable, next, type, error, rawequal =
      setmetatable, getmetatable, next, type, error, rawequal
    local maxdepth = ...

    -- A published table carries a private metatable that records its height (1 for one holding no
    -- table). No script ever holds a published table, and unlike a weak set of them the mark costs the
    -- collector nothing.
    local heights, marks = {}, {}

    local function height(v)
      local mt = getmetatable(v)
      if mt == nil then return nil end
      return heights[mt]
    end

    local function mark(t, h)
      local mt = marks[h]
      if mt == nil then
        mt = {}
        marks[h] = mt
        heights[mt] = h
      end
      setmetatable(t, mt)
    end

    -- The session of the handler running now: session[base] is the draft of a published table, and
    -- session[draft] its record {base, copy, parent, key, draft, more}: the table it stands for, its own
    -- copy once written to, where it was read from (more such places in `more`, for a table the state
    -- holds twice). A draft of any other session is dead.
    local current
    local draft_mt, touch

    local function record(d)
      local r = current ~= nil and current[d]
      if not r then error("a state draft was used after its handler returned", 3) end
      return r
    end

    local function link(r, parent, key)
      local pr = current[parent]
      touch(pr)
      if rawequal(pr[2][key], r[1]) then pr[2][key] = r[5] end
    end

    -- Copies a draft's base on its first write, and its parents', so the written path is new.
    function touch(r)
      if r[2] ~= nil then return end
      local copy = {}
      for k, v in next, r[1] do copy[k] = v end
      r[2] = copy
      if r[3] ~= nil then link(r, r[3], r[4]) end
      local more = r[6]
      if more ~= nil then
        for i = 1, #more, 2 do link(r, more[i], more[i + 1]) end
      end
    end

    -- The draft of published table `t`, read from `parent[key]`: one per table and session.
    local function draft_of(t, parent, key)
      local session = current
      local d = session[t]
      if d == nil then
        d = setmetatable({}, draft_mt)
        session[t] = d
        session[d] = { t, nil, parent, key, d }
      elseif parent ~= nil then
        local r = session[d]
        if not (rawequal(r[3], parent) and rawequal(r[4], key)) then
          local more = r[6] or {}
          r[6] = more
          local known = false
          for i = 1, #more, 2 do
            if rawequal(more[i], parent) and rawequal(more[i + 1], key) then known = true end
          end
          if not known then
            more[#more + 1] = parent
            more[#more + 1] = key
          end
          if r[2] ~= nil then link(r, parent, key) end
        end
      end
      return d
    end

    local function get(d, k)
      local r = record(d)
      local v = (r[2] or r[1])[k]
      if type(v) == "table" and height(v) then return draft_of(v, d, k) end
      return v
    end

    draft_mt = {
      __index = get,
      __newindex = function(d, k, v)
        local r = record(d)
        touch(r)
        r[2][k] = v
      end,
      __len = function(d)
        local r = record(d)
        return #(r[2] or r[1])
      end,
      __pairs = function(d)
        local r = record(d)
        local t = r[2] or r[1] -- keys in this table's order; values as they are now
        return function(_, k)
          local v
          repeat
            k = next(t, k)
            if k == nil then return nil end
            v = get(d, k)
          until v ~= nil
          return k, v
        end, d, nil
      end,
      __name = "flux.draft",
      __metatable = "flux.draft",
    }

    -- The published form of `v`, a handler's result or part of it; `memo` maps what is done (or under
    -- way) to its result, so shared tables stay shared and cycles end.
    local function freeze(v, memo)
      if type(v) ~= "table" or height(v) then return v end
      local done = memo[v]
      if done ~= nil then return done end
      local t
      local r = current ~= nil and current[v]
      if r then
        if next(v) ~= nil then error("a state draft was changed with rawset", 0) end
        if r[2] == nil then
          memo[v] = r[1]
          return r[1]
        end
        t = r[2] -- the draft's own copy: no script holds it
        memo[v] = t
      elseif getmetatable(v) == "flux.draft" then
        error("a state draft from an earlier action cannot be part of a new state", 0)
      else
        t = {} -- a table the script made stays the script's: the state gets a copy
        memo[v] = t
        for k, x in next, v do t[k] = x end
      end
      local h = 1
      for k, x in next, t do
        if type(x) == "table" then
          local fx = freeze(x, memo)
          if not rawequal(fx, x) then t[k] = fx end
          local hx = height(fx) or 0 -- 0: a cycle back to a table under way
          if hx >= h then h = hx + 1 end
        end
      end
      if h > maxdepth then error("table nested deeper than " .. maxdepth .. " levels", 0) end
      mark(t, h)
      return t
    end

    -- A Lua store's handler: called with a draft of the state; what it returns (a table) is frozen. A
    -- failed handler leaves its session current until the next call: its drafts can still be written (to
    -- copies of their own) but never frozen into a state.
    local function invoke(handler, state, action)
      current = {}
      local new = handler(draft_of(state), action)
      if type(new) == "table" then new = freeze(new, {}) end
      current = nil
      return new
    end

    -- A state from a script (flux.store's initial state): frozen, the script keeping its own table.
    local function freeze_new(t)
      current = nil
      return freeze(t, {})
    end

    return invoke, freeze_new
    """#
}
