extension Corpus {
    /// A `{"states": …}` log line giving `ticTacToe` a board of five cells on a 3 × 3 geometry.
    static let shortBoardLine = #"{"states":[{"store":"ticTacToe","format":"json","state":"{\"board\":[null,null,null,null,null],\"columns\":3,\"gameInstruction\":\"X's turn\",\"lineLength\":3,\"playerToMove\":\"X\",\"rows\":3,\"winningLine\":[]}"}],"label":"forged","time":1}"#

    /// Plugins that reach for what is not theirs: shared tables, other owners' frames, the hook, another
    /// store's payload; names and states made to break the terminal or a view.
    static let owners: [BadInput] = [
        file(.hostile, .text("flux.dispatch = function() end"), ":load {path}", "flux is shared and read-only",
             title: "a plugin replacing flux.dispatch for everyone"),
        file(.hostile, .text("string.format = nil"), ":load {path}", "string is shared and read-only",
             title: "a plugin removing string.format for everyone"),
        file(.hostile, .text("getmetatable('').__index = {upper = function() return 'forged' end}"), ":load {path}", "read-only",
             title: "a plugin replacing the strings' methods"),
        file(.hostile, .text("debug.sethook(function() end, '', 1)"), ":load {path}", "debug.sethook is not available to plugins",
             title: "a plugin installing a hook over every owner's code"),
        file(.hostile, .text("local r = debug.getregistry() r[1] = nil"), ":load {path}", "debug.getregistry is not available to plugins",
             title: "a plugin reaching the registry"),
        file(.hostile, .text("debug.setmetatable(nil, {__index = function() return 1 end})"), ":load {path}", "not available to plugins",
             title: "a plugin giving nil a metatable for everyone"),
        file(.hostile, .text("debug.getupvalue(flux.dispatch, 1)"), ":load {path}", "not this plugin's",
             title: "a plugin reading the upvalues of a function that is not its own"),
        BadInput(category: .hostile, title: "a plugin's subscriber reading a frame below it", setup: [],
                 input: .file(.text("flux.subscribe('probe', function() debug.getlocal(2, 1) end)"), command: ":load {path}"),
                 fragment: "not this plugin's", fails: false),
        file(.hostile, .text("assert(load(string.dump(function() end)))"), ":load {path}", "binary chunk",
             title: "a plugin loading a binary chunk"),
        file(.hostile, .text("flux.globals('fixture')"), ":load {path}", "flux.globals is for the prompt",
             title: "a plugin reading plugins' globals"),
        file(.hostile, .text("flux.store{name = 'audit', state = {}, actions = {['probe.add'] = {by = 'string'}}, on = {['probe.add'] = function() end}}"),
             ":load {path}", "an action of store 'probe'", title: "a plugin declaring the payload of another store's action"),
        lua(.hostile, "flux.store{name = 'x\\27]0;pwned\\7', state = {}}", "holds a control character",
            title: "a store name that sets the terminal's title"),
        lua(.hostile, "flux.view('v\\27[2J', {store = 'probe', render = function() return {sections = {}} end})", "holds a control character",
            title: "a view name that clears the screen"),
        lua(.hostile, "flux.store{name = 'cafe\\u{301}', state = {}}", "same name in another Unicode form",
            setup: ["flux.store{name = 'caf\\u{E9}', state = {}}"],
            title: "a store defined again by a canonically equivalent spelling"),
        lua(.hostile, """
            flux.store{name = 'effects', state = {}, on = {['effects.go'] = function()
              made = flux.subscribe('probe', function() end) error('handler failed', 0)
            end}}
            flux.dispatch('effects.go')
            """, "handler failed",
            outcome: .asIf(["flux.store{name = 'effects', state = {}, on = {['effects.go'] = function() end}}"],
                           why: "the store was defined before the dispatch failed; the subscription its handler made ended with the dispatch"),
            title: "a failing handler's subscription ends with its dispatch"),
        file(.files, .text(shortBoardLine), ":replay {path}", "the board has 5 cells; 3 × 3 needs 9",
             title: ":replay of a state whose board is shorter than its geometry"),
    ]
}
