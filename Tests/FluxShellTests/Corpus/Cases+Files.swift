extension Corpus {
    /// One log line: `name` with `payload` (JSON), as `:record` writes it.
    static func logLine(_ name: String, _ payload: String? = nil) -> String {
        #"{"name":"\#(name)""# + (payload.map { #","payload":\#($0)"# } ?? "") + #","time":1}"#
    }

    static let goodLine = logLine("ticTacToe.placeToken", #"{"index":0}"#)
    static let binary: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0xFF, 0xFE, 0x00, 0x10]

    /// `:load` and `:replay` of files that are missing, folders, binary or malformed.
    static let files: [BadInput] = [
        // :load
        file(.files, .missing, ":load {path}", "no plugin at "),
        file(.files, .directory, ":load {path}", "has no init.lua"),
        file(.files, .bytes(binary), ":load {path}", "not a text file"),
        file(.files, .bytes([0x66, 0x6C, 0x75, 0x78, 0xFF, 0xFE]), ":load {path}", "not a text file", title: ":load of a file that is not UTF-8"),
        file(.files, .text("flux.store{name = 'plugged'"), ":load {path}", "'}' expected", title: ":load of a plugin that does not compile"),
        file(.files, .text("flux.dispatch('nope')"), ":load {path}", "unknown action 'nope'", title: ":load of a plugin raising an error"),
        file(.files, .text("while true do end"), ":load {path}", "instruction budget exceeded", title: ":load of a plugin that never stops"),
        file(.files, .text("flux.dispatch('probe.add', {by = 1})\nerror('plugin failed halfway')"), ":load {path}", "plugin failed halfway",
             outcome: .asIf(["flux.dispatch('probe.add', {by = 1})"],
                            why: "a plugin is a script: what it did before its error stays, as typed lines would, and it can be fixed and reloaded"),
             title: ":load of a plugin that dispatches, then fails"),
        file(.files, .folder(["init.lua": "require('missing_module')"]), ":load {path}", "module 'missing_module' not found"),
        file(.files, .folder(["init.lua": "local m = require('helper') flux.dispatch('probe.add', {by = m.by})", "helper.lua": "return {by = 'x'}"]),
             ":load {path}", "probe.add: field 'by': expected an integer, got string"),
        file(.files, .folder(["readme.txt": "no init"]), ":load {path}", "has no init.lua"),
        file(.files, .text("if #flux.subscriptions() > 0 then error('reloaded and failed') end flux.subscribe('probe', function() end)"), ":reload", "reloaded and failed",
             setup: [":load {path}"], title: ":reload of a plugin that now fails"),
        file(.files, .text("loaded = true"), ":reload nope", "unknown plugin 'nope' (loaded: fixture)",
             setup: [":load {path}"], title: ":reload of a plugin that is not loaded"),
        file(.files, .text("loaded = true"), ":reload fixture extra", "unknown plugin 'fixture extra' (loaded: fixture)",
             setup: [":load {path}"], title: ":reload of a name no plugin has, blanks and all"),
        file(.files, .text("loaded = true"), ":record {path}", "already recording to",
             setup: [":record {path}.first"], title: ":record while recording"),

        // :replay
        file(.files, .missing, ":replay {path}", "cannot open "),
        file(.files, .directory, ":replay {path}", "it is a directory"),
        file(.files, .bytes(binary), ":replay {path}", "not a text file"),
        file(.files, .text(goodLine + "\n" + #"{"name":"ticTacToe.placeToken","payl"#), ":replay {path}", "line 2",
             title: ":replay of a log whose last line is cut short"),
        file(.files, .text(#"{"name":"ticTacToe.placeToken","payload":{"index":0},"time":1"#), ":replay {path}", "line 1",
             title: ":replay of a log whose only line is cut short"),
        file(.files, .text("this is not json\n" + goodLine), ":replay {path}", "line 1"),
        file(.files, .text(goodLine + "\n[1, 2, 3]"), ":replay {path}", "line 2", title: ":replay of a line that is a JSON array"),
        file(.files, .text(goodLine + "\n" + #"{"payload":{"index":1},"time":1}"#), ":replay {path}", "line 2", title: ":replay of a line without a name"),
        file(.files, .text(goodLine + "\n" + #"{"name":42,"time":1}"#), ":replay {path}", "line 2", title: ":replay of a line whose name is a number"),
        file(.files, .text(goodLine + "\n" + logLine("nope.nothing")), ":replay {path}", "line 2: unknown action 'nope.nothing'"),
        file(.files, .text(goodLine + "\n" + logLine("ticTacToe.placeToken", #"{"index":"one"}"#)), ":replay {path}", "line 2: ticTacToe.placeToken: field 'index'"),
        file(.files, .text(goodLine + "\n" + logLine("ticTacToe.placeToken", #"{"idx":1}"#)), ":replay {path}", "line 2: ticTacToe.placeToken: field 'index'"),
        file(.files, .text(goodLine + "\n" + logLine("ticTacToe.placeToken", "[1]")), ":replay {path}", "line 2: ticTacToe.placeToken"),
        file(.files, .text(goodLine + "\n" + logLine("ticTacToe.placeToken", #"{"index":1e30}"#)), ":replay {path}", "line 2: ticTacToe.placeToken: field 'index': expected an integer, got 1e+30"),
        file(.files, .text(goodLine + "\n" + logLine("ticTacToe.placeToken", #"{"index":1.5}"#)), ":replay {path}", "line 2: ticTacToe.placeToken: field 'index': expected an integer, got 1.5"),
        file(.files, .text(goodLine + "\n" + logLine("probe.tag", #"{"tags":["a",null]}"#)), ":replay {path}", "line 2: probe.tag: field 'tags[2]': a list cannot hold null"),
        file(.files, .text(goodLine + "\n" + #"{"name":"ticTacToe.placeToken","payload":{"index":1},"time":"noon"}"#), ":replay {path}", "line 2",
             title: ":replay of a line whose time is a string"),
        file(.files, .text(goodLine + "\n" + logLine("ticTacToe.placeToken", #"{"index":0}"#)), ":replay {path}", "line 2: store 'ticTacToe' failed on 'ticTacToe.placeToken': cell 0 is already taken",
             title: ":replay of a log whose second action the store refuses"),
        file(.files, .text(goodLine + "\n\u{0}\u{0}"), ":replay {path}", "not a text file", title: ":replay of a log with zero bytes"),
    ]
}
