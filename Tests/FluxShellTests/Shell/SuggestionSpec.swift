import Flux
import Foundation
import Testing

/// A name not found is answered with the closest names and where to list them, whatever the name is of.
@Suite("Errors that suggest the fix")
struct SuggestionSpec {
    @Test("the closest names: case folded, a prefix typed, the part after the dot, one edit in four characters")
    func closest() {
        let actions = ["ticTacToe.placeToken", "ticTacToe.reset", "connectFour.dropToken", "todo.add", "todo.toggle"]
        #expect(NameSuggestion.closest(to: "tictactoe.placeToken", in: actions) == ["ticTacToe.placeToken"])
        #expect(NameSuggestion.closest(to: "placeToken", in: actions) == ["ticTacToe.placeToken"])
        #expect(NameSuggestion.closest(to: "todo.ad", in: actions) == ["todo.add"])
        #expect(NameSuggestion.closest(to: "todo.tgogle", in: actions) == ["todo.toggle"])
        #expect(NameSuggestion.closest(to: "nope", in: actions) == [])
        #expect(NameSuggestion.closest(to: "x", in: ["y", "z"]) == [], "one letter for another is no suggestion")
        #expect(NameSuggestion.didYouMean("stor", in: ["store", "stores", "state"]) == "did you mean 'store' or 'stores'?")
        #expect(NameSuggestion.editDistance(Array("titel"), Array("title")) == 1, "two neighbours swapped are one edit")
    }

    @Test("unknown action, command, store, view, field, flux function and plugin: each suggests, and says where to list them")
    func shell() {
        let shell = ShellTranscript()
        let cases: [(String, String)] = [
            (":dispatch tictactoe.placeToken {index = 4}",
             "unknown action 'tictactoe.placeToken': did you mean 'ticTacToe.placeToken'? (:actions lists them)\n"),
            (":dispatch nothing.near", "unknown action 'nothing.near' (:actions lists them)\n"),
            (":hist", "unknown command ':hist': did you mean ':history'? (try :help)\n"),
            (":help hist", "unknown command ':hist': did you mean ':history'? (try :help)\n"),
            (":state tictactoe", "unknown store 'tictactoe': did you mean 'ticTacToe'? (known: annotationFilter, issues, visibleIssues, ticTacToe, connectFour)\n"),
            (":render tictactoe", "unknown view 'tictactoe': did you mean 'ticTacToe'? (known: annotationFilter, issues, visibleIssues, ticTacToe, connectFour)\n"),
            (":dispatch ticTacToe.placeToken {indx = 4}",
             "ticTacToe.placeToken: field 'index': expected an integer, got nil (the table has 'indx': did you mean 'index'?)\n"),
            (":help flux.dispach", "flux has no function 'dispach': did you mean 'dispatch'? (:help flux lists them)\n"),
            (":unload tictactoe", "unknown plugin 'tictactoe' (loaded: none)\n"),
        ]
        for (input, expected) in cases {
            let result = shell.type(input)
            #expect(!result.ok && result.errors == expected, "\(input)")
        }
        #expect(shell.shell.dispatcher.history.undoLabels.isEmpty, "a refused input changes nothing")
    }

    @Test("flux.store and flux.view refuse a field they do not take, naming the ones they do; nothing is defined")
    func unknownKeys() {
        let shell = ShellTranscript()
        let store = shell.type(#"flux.store{name = "c", state = {n = 0}, handlers = {}}"#)
        #expect(store.errors.contains("bad argument #1 to 'store' (unknown field 'handlers' (fields: actions, migrate, name, on, state, version, wait_for))"))
        let misspelled = shell.type(#"flux.store{name = "c", stat = {n = 0}, on = {}}"#)
        #expect(misspelled.errors.contains("unknown field 'stat': did you mean 'state'?"))
        let action = shell.type(#"flux.store{name = "c", state = {}, action = {}}"#)
        #expect(action.errors.contains("unknown field 'action': did you mean 'actions'?"))
        #expect(!shell.type(":state c").ok, "no store was defined")
        let view = shell.type(#"flux.view("v", {store = "ticTacToe", rendr = function() return {sections = {}} end})"#)
        #expect(view.errors.contains("bad argument #2 to 'view' (unknown field 'rendr': did you mean 'render'? (fields: keys, render, store))"))
        #expect(!shell.shell.host.views.names.contains("v"))
    }

    @Test("a plugin's missing module is reported with the plugin's own folder first among the files tried")
    func missingModule() throws {
        let folder = temporaryPath("missing-module")
        try FileManager.default.createDirectory(atPath: folder + "/todo", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "local text = require \"text\"\n".write(toFile: folder + "/todo/init.lua", atomically: true, encoding: .utf8)
        let shell = ShellTranscript()
        let result = shell.type(":load \(folder)/todo")
        #expect(result.errors.contains("init.lua:1: module 'text' not found:\n\tno file '\(folder)/todo/text.lua'\n\tno file '\(folder)/todo/text/init.lua'\n\tno field package.preload['text']"),
                "\(result.errors)")
    }
}
