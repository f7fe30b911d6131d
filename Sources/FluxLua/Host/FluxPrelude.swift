/// The part of the `flux` module written in Lua: read-only views of state tables, and the call of a Lua
/// store's handler on a copy of its state (the copy made by the C shim's `flux_deepcopy`, the chunk's
/// argument).
///
/// Lua store states are plain tables that are never changed once published (handlers get a deep
/// copy), so a read-only view over one never changes under a script that keeps it. Views are cached
/// per table, weakly, so handing the same state to many subscribers creates one view.
enum FluxPrelude {
    static let source = #"""
    local setmetatable, rawget, next, type, error, tostring = setmetatable, rawget, next, type, error, tostring
    local deepcopy = ...

    -- views[table] is its view; targets[view] the table behind it. Both weak: a view lives as long as
    -- a script keeps it, and all views share one metatable, so a view costs one table, no closures.
    local views = setmetatable({}, { __mode = "k" })
    local targets = setmetatable({}, { __mode = "k" })
    local readonly

    local function refuse(_, key)
      error("state is read-only (field '" .. tostring(key) .. "'): dispatch an action to change it", 2)
    end

    local view_mt = {
      __index = function(view, k)
        local v = targets[view][k]
        if type(v) == "table" then return readonly(v) end
        return v
      end,
      __newindex = refuse,
      __len = function(view) return #targets[view] end,
      __pairs = function(view)
        local t = targets[view]
        return function(_, k)
          local nk, nv = next(t, k)
          if type(nv) == "table" then nv = readonly(nv) end
          return nk, nv
        end, view, nil
      end,
      __name = "flux.state",
    }

    readonly = function(t)
      if type(t) ~= "table" then return t end
      local view = views[t]
      if view then return view end
      view = setmetatable({}, view_mt)
      views[t] = view
      targets[view] = t
      return view
    end

    -- A Lua store's handler gets a copy of the state, so the published table never changes.
    local function invoke(handler, state, action)
      return handler(deepcopy(state), action)
    end

    return readonly, invoke
    """#
}
