extension Corpus {
    /// The Lua error values each callback throws in turn.
    static let errorValues: [(name: String, lua: String, fragment: String)] = [
        ("string", "error('refused: a message', 0)", "refused: a message"),
        ("table", "error({code = 7})", "(error object is a table value)"),
        ("nil", "error(nil)", "nil"),
        ("number", "error(42, 0)", "42"),
    ]

    /// A Lua store `name` whose handler for `name.go` runs `body`.
    static func luaStore(_ name: String, _ body: String) -> String {
        "flux.store{name = '\(name)', state = {n = 0}, on = {['\(name).go'] = function(state, action) state.n = state.n + 1 \(body) return state end}}"
    }

    /// A Lua view `name` of the notes store whose render runs `body`.
    static func luaView(_ name: String, _ body: String) -> String {
        "flux.view('\(name)', {store = 'notes', render = function(state) \(body) end})"
    }

    static let subscriberNote = "the dispatch succeeded before the subscriber ran: it stays, and the subscriber's error is reported on the side"

    /// An error thrown by each kind of callback, with each kind of error value.
    static let callbacks: [BadInput] = swiftStoreErrors + luaStoreErrors + subscriberErrors + viewErrors + middlewareErrors + otherCallbackErrors

    static let swiftStoreErrors: [BadInput] = [
        lua(.callbacks, "flux.dispatch('probe.fail', {kind = 'string'})", "store 'probe' failed on 'probe.fail': probe refused: a message"),
        lua(.callbacks, "flux.dispatch('probe.fail', {kind = 'table'})", "store 'probe' failed on 'probe.fail': ProbeStructuredError(code: 7"),
        lua(.callbacks, "flux.dispatch('probe.fail', {kind = 'nil'})", "store 'probe' failed on 'probe.fail': ProbeEmptyError"),
        lua(.callbacks, "flux.dispatch('probe.fail', {kind = 'number'})", "store 'probe' failed on 'probe.fail': Error Domain=probe Code=42"),
        lua(.callbacks, "flux.group('g', function() flux.dispatch('probe.add', {by = 1}) flux.dispatch('probe.fail', {kind = 'string'}) end)",
            "store 'probe' failed on 'probe.fail'", title: "a group is all or nothing: the action before the failing one is rolled back too"),
        lua(.callbacks, "print(pcall(flux.dispatch, 'probe.fail', {kind = 'table'})) error('after pcall')", "after pcall",
            title: "a Swift handler's error caught by pcall, then another error"),
    ]

    static let luaStoreErrors: [BadInput] = errorValues.map { value in
        lua(.callbacks, "flux.dispatch('failing.go')", "store 'failing' failed on 'failing.go'",
            setup: [luaStore("failing", value.lua)], title: "a Lua store handler raising a \(value.name)")
    } + errorValues.map { value in
        lua(.callbacks, "flux.dispatch('failing.go')", value.fragment,
            setup: [luaStore("failing", value.lua)], title: "a Lua store handler raising a \(value.name): the value is shown")
    } + [
        lua(.callbacks, "flux.dispatch('failing.go')", "must return the new state table or nothing, got number",
            setup: [luaStore("failing", "do return 42 end")]),
        lua(.callbacks, "flux.dispatch('failing.go')", "must return the new state table or nothing, got string",
            setup: [luaStore("failing", "do return 'new state' end")]),
        lua(.callbacks, "flux.dispatch('failing.go')", "must return the new state table or nothing, got boolean",
            setup: [luaStore("failing", "do return true end")]),
        lua(.callbacks, "flux.dispatch('failing.go')", "custom error text",
            setup: [luaStore("failing", "error(setmetatable({}, {__tostring = function() return 'custom error text' end}))")]),
        lua(.callbacks, "flux.dispatch('failing.go')", "attempt to index a nil value",
            setup: [luaStore("failing", "local x = nil; x.y = 1")]),
        lua(.callbacks, "flux.dispatch('both.go')", "store 'second' failed on 'both.go'",
            setup: ["flux.store{name = 'first', state = {n = 0}, on = {['both.go'] = function(s) s.n = s.n + 1 return s end}}",
                    "flux.store{name = 'second', state = {n = 0}, on = {['both.go'] = function(s) error('second refuses') end}}"],
            title: "a second Lua store fails after the first changed: both roll back"),
        lua(.callbacks, "flux.dispatch('probe.add', {by = 5})", "store 'late' failed on 'probe.add'",
            setup: ["flux.store{name = 'late', on = {['probe.add'] = function(s, a) error('late refuses ' .. a.by) end}}"],
            title: "a Lua store fails on a Swift action after the Swift store changed: both roll back"),
        lua(.callbacks, "flux.dispatch('failing.go')", "store 'failing' failed on 'failing.go'",
            setup: [luaStore("failing", "action.type = 'changed' state.extra = action error('after changing its copy')")]),
    ]

    static let subscriberErrors: [BadInput] = errorValues.map { value in
        lua(.callbacks, "flux.subscribe('probe', function() \(value.lua) end)", "error in subscriber of 'probe'", fails: false,
            title: "a subscriber raising a \(value.name) when it is first called")
    } + errorValues.map { value in
        lua(.callbacks, "flux.subscribe('notes', function() \(value.lua) end)", value.fragment, fails: false,
            title: "a Lua store's subscriber raising a \(value.name) when it is first called")
    } + errorValues.map { value in
        lua(.callbacks, "flux.dispatch('probe.add', {by = 1})", "error in subscriber of 'probe'",
            setup: ["sub = flux.subscribe('probe', function(state, previous) if previous then \(value.lua) end end)"],
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: subscriberNote), fails: false,
            title: "a subscriber raising a \(value.name) after a dispatch")
    } + errorValues.map { value in
        lua(.callbacks, "flux.dispatch('notes.add', {text = 'second'})", "error in subscriber of 'notes'",
            setup: ["sub = flux.subscribe('notes', function(state, previous) if previous then \(value.lua) end end)"],
            outcome: .asIf(["flux.dispatch('notes.add', {text = 'second'})"], why: subscriberNote), fails: false,
            title: "a Lua store's subscriber raising a \(value.name) after a dispatch")
    } + [
        lua(.callbacks, "flux.undo()", "error in subscriber of 'probe'",
            setup: ["sub = flux.subscribe('probe', function(state, previous) if previous then error('after undo') end end)",
                    "flux.dispatch('probe.add', {by = 1})"],
            outcome: .asIf(["flux.undo()"], why: "the undo happened before the subscriber ran"),
            fails: false, title: "a subscriber failing after an undo"),
        lua(.callbacks, "flux.dispatch('probe.add', {by = 1})", "read-only",
            setup: ["sub = flux.subscribe('probe', function(state, previous) if previous then state.count = 99 end end)"],
            outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"], why: subscriberNote), fails: false,
            title: "a subscriber assigning to the state it received"),
        lua(.callbacks, "flux.dispatch('notes.add', {text = 'x'})", "read-only",
            setup: ["sub = flux.subscribe('notes', function(state, previous) if previous then state.items[1] = 'changed' end end)"],
            outcome: .asIf(["flux.dispatch('notes.add', {text = 'x'})"], why: subscriberNote), fails: false,
            title: "a Lua store's subscriber assigning to the state it received"),
    ]

    static let viewErrors: [BadInput] = errorValues.map { value in
        lua(.callbacks, "flux.render('bad')", value.fragment, setup: [luaView("bad", value.lua)],
            title: "a Lua view provider raising a \(value.name) in flux.render")
    } + errorValues.map { value in
        lua(.callbacks, "flux.model('bad')", value.fragment, setup: [luaView("bad", value.lua)],
            title: "a Lua view provider raising a \(value.name) in flux.model")
    } + ["string", "table", "nil", "number"].map { kind in
        lua(.callbacks, "flux.render('broken.\(kind)')", ["string": "probe refused", "table": "ProbeStructuredError", "nil": "ProbeEmptyError", "number": "Code=42"][kind]!,
            title: "a Swift view provider throwing a \(kind)-like error in flux.render")
    } + [
        lua(.callbacks, "flux.watch('broken.string', print)", "probe refused"),
        lua(.callbacks, "flux.watch('bad', print)", "refused in render", setup: [luaView("bad", "error('refused in render')")]),
        lua(.callbacks, "flux.render('bad')", "render must return a table, got number", setup: [luaView("bad", "return 42")]),
        lua(.callbacks, "flux.render('bad')", "render must return a table, got nil", setup: [luaView("bad", "")]),
        lua(.callbacks, "flux.render('bad')", "model.sections", setup: [luaView("bad", "return {sections = 5}")]),
        lua(.callbacks, "flux.render('bad')", "model.sections[1].cells[1].accessory",
            setup: [luaView("bad", "return {sections = {{header = 'h', cells = {{title = 't', accessory = 'sparkles'}}}}}")]),
        lua(.callbacks, "flux.render('bad')", "model.sections[1].cells[1].title",
            setup: [luaView("bad", "return {sections = {{cells = {{title = 42}}}}}")]),
        lua(.callbacks, "flux.render('bad')", "read-only", setup: [luaView("bad", "state.count = 0 return {sections = {}}")]),
        lua(.callbacks, "flux.dispatch('notes.add', {text = 'second'})", "refused on change",
            setup: [luaView("bad", "if state.count > 1 then error('refused on change') end return {sections = {}}"), "w = flux.watch('bad', function() end)"],
            outcome: .asIf(["flux.dispatch('notes.add', {text = 'second'})"], why: "the dispatch succeeded; the view that watches it fails on the side"),
            fails: false, title: "a watched Lua view failing after a dispatch"),
    ]

    static let middlewareErrors: [BadInput] = ["string", "table", "nil", "number"].map { kind in
        lua(.callbacks, "flux.dispatch('probe.reject', {kind = '\(kind)'})", "'probe.reject' rejected",
            title: "a middleware refusing with a \(kind)-like error")
    } + [
        lua(.callbacks, "flux.dispatch('probe.reject', {kind = 'string'})", "probe refused: a message"),
        lua(.callbacks, "flux.dispatch('probe.reject', {kind = 'dispatch'})", "cannot dispatch 'probe.add' while 'probe.reject' is being handled",
            title: "a middleware dispatching before the stores run"),
    ]

    static let otherCallbackErrors: [BadInput] = [
        lua(.callbacks, "flux.dispatch('notes.add', {text = 'second'})", "error in watcher of 'notes'",
            setup: ["w = flux.watch('notes', function(diff) error('watcher refuses: ' .. diff.inserted) end)"],
            outcome: .asIf(["flux.dispatch('notes.add', {text = 'second'})"], why: "the dispatch succeeded; the watcher fails on the side"),
            fails: false),
        lua(.callbacks, "flux.dispatch('notes.add', {text = 'second'})", "(error object is a table value)",
            setup: ["w = flux.watch('notes', function() error({}) end)"],
            outcome: .asIf(["flux.dispatch('notes.add', {text = 'second'})"], why: "the dispatch succeeded; the watcher fails on the side"),
            fails: false),
        lua(.callbacks, "flux.group('g', function() error('inside the group') end)", "inside the group"),
        lua(.callbacks, "flux.group('g', function() error({}) end)", "(error object is a table value)"),
        lua(.callbacks, "flux.group('g', function() flux.dispatch('probe.add', {by = 1}) error(nil) end)", "nil",
            title: "a group whose function raises rolls back its successful dispatch"),
    ]
}
