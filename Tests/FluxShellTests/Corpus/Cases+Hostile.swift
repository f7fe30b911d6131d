extension Corpus {
    /// A Lua store `kept` whose handler for `kept.go` runs `body` (with `s` the state) and returns `s`.
    static func keptStore(_ body: String) -> String {
        "flux.store{name = 'kept', state = {n = 0, list = {1, 2}}, on = {['kept.go'] = function(s) \(body) return s end}}"
    }

    /// Scripts that keep references, call metamethods by hand, clear the hook or let the collector run at
    /// the worst moment: each gets an error (or nothing happens), never a crash or a forged state.
    static let hostile: [BadInput] = lifetimes + metatables + forgedStates + limits + owners

    static let lifetimes: [BadInput] = [
        lua(.hostile, """
            local sub
            sub = flux.subscribe('probe', function(state, previous)
              if previous then sub:cancel() sub = nil collectgarbage() collectgarbage() local t = {} for i = 1, 1000 do t[i] = {} end end
            end)
            sub = nil
            flux.dispatch('probe.add', {by = 1})
            error('one-shot done', 0)
            """, "one-shot done",
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: "the dispatch ran; the subscriber heard it once and let go of itself"),
            title: "a one-shot subscriber cancels itself, drops its handle and allocates while it runs"),
        lua(.hostile, """
            local sub
            sub = flux.subscribe('notes', function(state, previous)
              if previous then sub:cancel() sub = nil collectgarbage() collectgarbage() end
            end)
            flux.dispatch('notes.add', {text = 'once'})
            error('one-shot done', 0)
            """, "one-shot done",
            outcome: .asIf(["flux.dispatch('notes.add', {text = 'once'})"], why: "the dispatch ran; the subscriber let go of itself"),
            title: "a one-shot subscriber of a Lua store cancels itself and collects"),
        lua(.hostile, "late = setmetatable({}, {__gc = function() flux.dispatch('probe.add', {by = 1}) end}) error('kept for later', 0)",
            "kept for later", title: "a finalizer that dispatches once the shell is gone"),
        lua(.hostile, "late = setmetatable({}, {__gc = function() flux.subscribe('probe', function() end) flux.undo() end}) error('kept', 0)",
            "kept", title: "a finalizer that subscribes and undoes once the shell is gone"),
        lua(.hostile, "collectgarbage('stop') for i = 1, 50 do setmetatable({}, {__gc = function() flux.dispatch('probe.add', {by = 1}) end}) end collectgarbage('restart') collectgarbage() error('collected', 0)",
            "collected",
            outcome: .asIf(["for i = 1, 50 do flux.dispatch('probe.add', {by = 1}) end"], why: "each finalizer ran while the shell lived: its dispatch is an ordinary one"),
            title: "finalizers that dispatch while the shell lives"),
        lua(.hostile, """
            local subs = {}
            for i = 1, 20 do subs[i] = flux.subscribe('notes', function() subs[i]:cancel() subs[i] = nil collectgarbage() end) end
            subs = nil collectgarbage()
            flux.dispatch('notes.add', {text = 'x'})
            error('cancelled all', 0)
            """, "cancelled all",
            outcome: .asIf(["flux.dispatch('notes.add', {text = 'x'})"], why: "the dispatch ran; each subscriber cancelled itself"),
            title: "subscribers that cancel themselves while the list of them is dropped"),
    ]

    static let metatables: [BadInput] = [
        lua(.hostile, "getmetatable(flux.subscribe('probe', function() end)).__gc(io.stdout)", "attempt to call a nil value",
            title: "a subscription's __gc called on a file"),
        lua(.hostile, "local s = flux.subscribe('probe', function() end) getmetatable(s).__gc(s) s:cancel()", "attempt to call a nil value",
            title: "a subscription's __gc called on itself, then the subscription used"),
        lua(.hostile, "flux.subscribe('probe', function(state) getmetatable(state).__gc(io.stdout) end)", "attempt to call a nil value",
            fails: false, title: "a Swift state's __gc called on a file"),
        lua(.hostile, "local s = flux.subscribe('probe', function() end) getmetatable(s).__close(io.stdout)", "attempt to call a nil value",
            title: "a subscription's __close called on a file"),
        lua(.hostile, "getmetatable(flux.subscribe('probe', function() end)).__index = function() return function() return 'forged' end end",
            "attempt to index a string value", title: "rewriting every subscription's methods"),
        lua(.hostile, "flux.subscribe('notes', function(state) setmetatable(state, {}) end)", "bad argument #1 to 'setmetatable'",
            fails: false, title: "a Lua store's state view given a metatable"),
    ]

    static let forgedStates: [BadInput] = [
        lua(.hostile, "flux.dispatch('kept.go') stash.n = 99 stash.list[1] = 'forged'", "used after its handler returned",
            setup: [keptStore("stash = s s.n = s.n + 1")],
            outcome: .asIf(["flux.dispatch('kept.go')"], why: "the dispatch ran; the state the handler returned cannot be changed afterwards"),
            title: "a handler keeps the state it returns and changes it later"),
        lua(.hostile, "flux.dispatch('kept.go') stash[1] = 'forged' error('changed my own list', 0)", "changed my own list",
            setup: [keptStore("stash = {'mine'} s.list = stash")],
            outcome: .asIf(["flux.dispatch('kept.go')"], why: "the list the handler made is copied into the state; the script keeps its own"),
            title: "a handler keeps a table it put in the state and changes it later"),
        lua(.hostile, "flux.dispatch('kept.go') stash.n = 99 error('changed my own table', 0)", "changed my own table",
            setup: ["flux.store{name = 'kept', state = {n = 0}, on = {['kept.go'] = function(s) stash = {n = s.n + 1} return stash end}}"],
            outcome: .asIf(["flux.dispatch('kept.go')"], why: "the new table the handler returned is copied; the script keeps its own"),
            title: "a handler keeps the new table it returns and changes it later"),
        lua(.hostile, "flux.dispatch('kept.go') error('state ' .. flux.state('kept').n, 0)", "state 1",
            setup: ["stash = {n = 0} flux.store{name = 'kept', state = stash, on = {['kept.go'] = function(s) s.n = s.n + 1 return s end}} stash.n = 50"],
            outcome: .asIf(["flux.dispatch('kept.go')"], why: "the initial state is a copy: the script's table stays its own"),
            title: "a script changes the table it gave as a store's initial state"),
        lua(.hostile, """
            flux.subscribe('kept', function(s) pcall(rawset, s, 'n', 99) end)
            flux.subscribe('kept', function(s) seen = s.n end)
            error('seen ' .. tostring(seen), 0)
            """, "seen 0", setup: [keptStore("")], title: "rawset on a received state"),
        lua(.hostile, """
            flux.subscribe('kept', function(s)
              local mt = getmetatable(s)
              if type(mt) == 'table' then mt.__index = function() return 'forged' end end
            end)
            flux.subscribe('kept', function(s) seen = s.n end)
            error('seen ' .. tostring(seen), 0)
            """, "seen 0", setup: [keptStore("")], title: "rewriting the metatable of a received state"),
        lua(.hostile, """
            flux.subscribe('kept', function(s) kept_view = kept_view or s end)
            flux.dispatch('kept.go')
            error('old view ' .. kept_view.n .. ' ' .. tostring(pcall(function() kept_view.n = 5 end)), 0)
            """, "old view 0 false", setup: [keptStore("s.n = s.n + 1")],
            outcome: .asIf(["flux.dispatch('kept.go')"], why: "the dispatch ran; a view kept from before still reads the state it was made for"),
            title: "a view kept across a change"),
        lua(.hostile, "flux.dispatch('kept.go') error('after', 0)", "table nested deeper than 1000 levels",
            setup: [keptStore("local t = {} for i = 1, 1001 do t = {t} end s.deep = t")],
            title: "a handler publishing a state deeper than the limit"),
        lua(.hostile, "flux.dispatch('kept.go')", "a state draft from an earlier action cannot be part of a new state",
            setup: [keptStore("if old then s.other = old end old = s"), "flux.dispatch('kept.go')"],
            title: "a handler putting a draft of an earlier action into the new state"),
        lua(.hostile, "flux.dispatch('kept.go') error('after', 0)", "changed with rawset",
            setup: [keptStore("rawset(s, 'n', 99)")], title: "a handler changing its draft with rawset"),
    ]

    static let limits: [BadInput] = [
        lua(.hostile, "local f = io.tmpfile() getmetatable(f).__gc = function() while true do end end f = nil collectgarbage() error('collected', 0)",
            "attempt to index a string value",
            title: "a looping __gc put into the open files' metatable, which Lua finalizes with hooks off"),
        lua(.hostile, "setmetatable({}, {__gc = function() while true do end end}) collectgarbage() error('collected', 0)",
            "error in finalizer: stdin:1: instruction budget exceeded", title: "a finalizer that loops, at a collection"),
        lua(.hostile, "setmetatable({}, {__gc = function() while true do end end}) local t for i = 1, 200000 do t = {i} end error('allocated', 0)",
            "instruction budget exceeded", title: "a finalizer that loops, at a collection step of a later allocation"),
        lua(.hostile, "flux.dispatch('kept.go') error('after', 0)", "error in finalizer",
            setup: [keptStore("setmetatable({}, {__gc = function() while true do end end}) collectgarbage()")],
            outcome: .asIf(["flux.dispatch('kept.go')"], why: "the dispatch ran; the finalizer its handler left was stopped on its own"),
            title: "a finalizer that loops, collected during a dispatch"),
        lua(.hostile, "setmetatable({}, {__gc = function() while true do pcall(function() while true do end end) end end}) collectgarbage() error('collected', 0)",
            "error in finalizer", title: "a finalizer that loops and catches the budget error"),
        lua(.hostile, "local mt = {__gc = true} setmetatable({}, mt) mt.__gc = function() while true do end end collectgarbage() error('collected', 0)",
            "error in finalizer", title: "a finalizer put in the metatable after setmetatable, that loops"),
        lua(.hostile, "setmetatable({}, {__gc = function() flux.dispatch('probe.add', {by = 1}) while true do end end}) collectgarbage() error('collected', 0)",
            "error in finalizer",
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: "the finalizer's dispatch ran before it looped and was stopped"),
            title: "a finalizer that dispatches, then loops"),
        lua(.hostile, "debug.getregistry()['flux.sentinels'] = 5 setmetatable({}, {__gc = print})", "debug.getregistry is not available",
            title: "the host's table of finalizers replaced through the registry, then a finalizer given"),
        lua(.hostile, "debug.getmetatable(flux.subscribe('probe', function() end)).__gc = function() while true do end end",
            "attempt to index a string value", title: "a looping __gc put into the host's metatable through debug.getmetatable"),
        lua(.hostile, "debug.setupvalue(flux.stores, 1, io.stdout) flux.stores()", "cannot change the upvalues of a C function",
            title: "a Swift function's box replaced through debug.setupvalue, then the function called"),
        lua(.hostile, "local wrapped = coroutine.wrap(function() end) debug.setupvalue(wrapped, 1, 42) wrapped()",
            "cannot change the upvalues of a C function", title: "a wrapped coroutine replaced through debug.setupvalue"),
        lua(.hostile, "flux.dispatch('probe.add', {by = 1}) select(2, debug.getupvalue(flux.dispatch, 2))['probe.add'] = 99 flux.dispatch('probe.add')",
            "cannot read the upvalues of a C function",
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: "the first dispatch ran; the names it resolved stayed out of reach"),
            title: "the table of resolved action names rewritten through debug.getupvalue"),
        lua(.hostile, "debug.setmetatable(io.stdout, {__gc = function() while true do end end})", "cannot change the metatable of a userdata",
            title: "a looping finalizer given to a file with debug.setmetatable"),
        lua(.hostile, "flux.subscribe('probe', function(s) debug.setmetatable(s, {__index = function() return 'forged' end}) end) flux.dispatch('probe.add', {by = 1})",
            "cannot change the metatable of a userdata",
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: "the dispatch ran; the subscriber failed after it"),
            fails: false, title: "a Swift state's view given another metatable with debug.setmetatable"),
        lua(.hostile, "debug.sethook() while true do end", "instruction budget exceeded", title: "clearing the hook, then looping"),
        lua(.hostile, "debug.sethook(function() end, '', 1000) while true do end", "instruction budget exceeded",
            title: "a count hook of the script's own, then looping"),
        lua(.hostile, "debug.sethook(function() while true do end end, 'l')\nlocal x = 1", "instruction budget exceeded",
            title: "a line hook that never returns (it is removed)"),
        lua(.hostile, "local co = coroutine.create(function() debug.sethook() while true do end end) coroutine.resume(co) error(select(2, coroutine.resume(co)) or 'stopped', 0)",
            "instruction budget exceeded", title: "clearing the hook in a coroutine, then looping"),
        lua(.hostile, "debug.sethook(function(event) hooked = (hooked or 0) + 1 end, 'c') local function f() end f() f() debug.sethook() error('hooked ' .. tostring(hooked > 0), 0)",
            "hooked true", title: "a script's own call hook still runs"),
        lua(.hostile, """
            big = {}
            for i = 1, 1000000 do big[i] = i end
            flux.store{name = 'big', state = {n = 0, list = big}, on = {['big.go'] = function(s) s.n = s.n + 1 return s end}}
            big = nil
            for i = 1, 100 do flux.dispatch('big.go') end
            error('dispatched ' .. flux.state('big').n, 0)
            """, "dispatched 100",
            outcome: .unpredictable(why: "the store the input defines exists only in this world"),
            title: "a 16 MiB Lua state with 100 undo steps: the steps share what they did not change"),
    ]
}
