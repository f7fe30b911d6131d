extension Corpus {
    /// Callbacks that cancel, redefine and collect at every point of a dispatch, a tell and a render: each
    /// reports its error, and the shell and its stores go on as the case says. `scripts/torture` runs them
    /// with a collection at every allocation, which is where the lifetime bugs they hunt show.
    static let lifetime: [BadInput] = [
        // Subscribers that cancel their store's last subscription while they are told.
        lua(.reentrancy, "flux.dispatch('probe.add', {by = 1})", "after cancel",
            setup: ["sub = flux.subscribe('probe', function(s, previous) if previous then sub:cancel() collectgarbage() error('after cancel') end end)"],
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: subscriberNote), fails: false,
            title: "the last subscriber of a Swift store cancelling itself, then failing"),
        lua(.reentrancy, "flux.dispatch('notes.add', {text = 'x'})", "after cancel",
            setup: ["sub = flux.subscribe('notes', function(s, previous) if previous then sub:cancel() collectgarbage() error('after cancel') end end)"],
            outcome: .asIf(["flux.dispatch('notes.add', {text = 'x'})"], why: subscriberNote), fails: false,
            title: "the last subscriber of a Lua store cancelling itself, then failing"),
        lua(.reentrancy, "flux.dispatch('probe.add', {by = 1})", "closed and failed",
            setup: ["sub = flux.subscribe('probe', function(s, previous) if previous then local c <close> = sub end if previous then error('closed and failed') end end)"],
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: subscriberNote), fails: false,
            title: "the last subscriber cancelled by <close> as it returns"),
        lua(.reentrancy, "flux.dispatch('probe.add', {by = 1})", "every one cancelled",
            setup: ["for i = 1, 5 do flux.subscribe('probe', function(s, previous) if previous then for _, x in ipairs(flux.subscriptions('probe')) do x:cancel() end collectgarbage() error('every one cancelled') end end) end"],
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: subscriberNote), fails: false,
            title: "the first of five subscribers cancelling all of them"),
        lua(.reentrancy, "flux.dispatch('probe.add', {by = 1})", "subscribed again",
            setup: ["sub = flux.subscribe('probe', function(s, previous) if previous then sub:cancel() again = flux.subscribe('probe', function() end) collectgarbage() error('subscribed again') end end)"],
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: subscriberNote), fails: false,
            title: "the last subscriber cancelling itself and subscribing anew"),

        // Finalizers that run at any allocation of a dispatch or a tell.
        lua(.reentrancy, "flux.dispatch('probe.add', {by = 1})", "storm",
            setup: ["local armed = 0 local function arm() armed = armed + 1 if armed > 50 then return end setmetatable({}, {__gc = function() for _, x in ipairs(flux.subscriptions('notes')) do x:cancel() end pcall(flux.dispatch, 'probe.add', {by = 1}) arm() end}) end arm()",
                    "sub = flux.subscribe('probe', function(s, previous) if previous then collectgarbage() error('storm') end end)"],
            outcome: .unpredictable(why: "a finalizer dispatches whenever the collector runs"), fails: false,
            title: "finalizers that cancel and dispatch at every collection"),
        lua(.reentrancy, "flux.dispatch('inner.go')", "collected in a handler",
            setup: [luaStore("inner", "setmetatable({}, {__gc = function() pcall(flux.dispatch, 'probe.add', {by = 1}) end}) collectgarbage() error('collected in a handler')")],
            title: "a Lua handler collecting a finalizer that dispatches, then failing"),

        // Renders that cancel, redefine and collect.
        lua(.reentrancy, "flux.render('v')", "render after cancel",
            setup: ["sub = flux.subscribe('notes', function() end)",
                    luaView("v", "for _, x in ipairs(flux.subscriptions('notes')) do x:cancel() end collectgarbage() error('render after cancel')")],
            title: "a render cancelling its store's subscriptions, then failing"),
        lua(.reentrancy, "flux.render('v')", "redefined while rendering",
            setup: [luaView("v", "pcall(flux.view, 'v', {store = 'notes', render = function() return {sections = {}} end}) collectgarbage() error('redefined while rendering')")],
            title: "a render redefining its own view, then failing"),
        lua(.reentrancy, "flux.dispatch('notes.add', {text = 'x'})", "watch collected",
            setup: [luaView("v", "collectgarbage() return {sections = {{header = tostring(#state.items), cells = {}}}}"),
                    "w = flux.watch('v', function() w:cancel() collectgarbage() error('watch collected') end)"],
            outcome: .asIf(["flux.dispatch('notes.add', {text = 'x'})"], why: subscriberNote), fails: false,
            title: "a watch cancelling itself and collecting, then failing"),

        // A store defined with another store's state in it.
        lua(.values, "flux.store{name = 'copy', state = {other = seen}}", "state.other is a userdata",
            setup: ["sub = flux.subscribe('probe', function(s) seen = s end)"],
            title: "a Lua store whose initial state nests a Swift store's view"),
        lua(.values, "flux.store{name = 'copy', state = {deep = {{seen}}}}", "state.deep[1][1] is a userdata",
            setup: ["sub = flux.subscribe('notes', function(s) seen = s end)"],
            title: "a Lua store whose initial state nests a Lua store's view"),

        // A message handler that never returns.
        lua(.runaway, "xpcall(function() while true do end end, function() while true do end end) while true do end", "instruction budget exceeded",
            title: "xpcall whose message handler loops after the budget ran out"),
        lua(.runaway, "xpcall(function() error('x') end, function() while true do end end) while true do end", "instruction budget exceeded",
            title: "xpcall whose message handler loops on an ordinary error"),
    ]
}
