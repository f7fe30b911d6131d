import Flux
import FluxLua
import FluxShell
import Foundation

/// A fresh session with every kind of store: the shipped features, the Swift probe store, and Lua
/// stores and views defined by `baseSetup`, with an undo and a redo step in the history.
///
/// The session is a ``Shell``, created in one place, ``init()``: everything else reaches it through
/// ``execute(_:)``, ``dispatcher`` and ``host``.
final class CorpusWorld {
    /// Lua run once in every world: a Lua store, a Lua view, and some history.
    static let baseSetup = #"""
    flux.store{
      name = "notes",
      state = {items = {}, count = 0},
      on = {
        ["notes.add"] = function(state, action)
          if type(action.text) ~= "string" then
            error("notes.add: field 'text' must be a string, got " .. type(action.text), 0)
          end
          state.items[#state.items + 1] = action.text
          state.count = state.count + 1
          return state
        end,
        ["notes.clear"] = function() return {items = {}, count = 0} end,
      },
    }
    flux.view("notes", {store = "notes", render = function(state)
      local cells = {}
      for i, text in ipairs(state.items) do cells[i] = {title = text} end
      return {sections = {{header = "Notes", cells = cells}}}
    end})
    flux.dispatch("notes.add", {text = "first"})
    flux.dispatch("ticTacToe.placeToken", {index = 4})
    flux.dispatch("probe.add", {by = 2})
    flux.dispatch("annotationFilter.toggleFilter", {filter = "issues.status"})
    flux.dispatch("connectFour.dropToken", {column = 3})
    flux.undo()
    """#

    /// The instruction budget of one input: a runaway script stops here.
    static let instructionBudget = 60_000_000
    /// The memory Lua may hold: allocation without end stops here.
    static let memoryLimit = 512 << 20

    /// The session under test.
    let shell: Shell
    var dispatcher: Dispatcher { shell.dispatcher }
    var host: FluxHost { shell.host }
    private let output = Output()

    /// Everything written to standard output and to the error stream so far.
    final class Output {
        var text = ""
        var errors = ""
    }

    init() {
        let output = output
        var configuration = ShellConfiguration()
        configuration.color = false
        configuration.width = 80
        configuration.memoryLimit = Self.memoryLimit
        configuration.instructionBudget = Self.instructionBudget
        shell = Shell(configuration: configuration, write: { output.text += $0 }, writeError: { output.errors += $0 })
        _ = installProbe(on: shell.dispatcher, host: shell.host)
        if !execute(Self.baseSetup) { setupError = output.errors }
    }

    /// What went wrong setting the world up, if anything did.
    private(set) var setupError: String?

    /// Runs one complete input as typed at the prompt; false when it failed.
    @discardableResult
    func execute(_ input: String) -> Bool {
        shell.execute(input)
    }

    /// What was written to the error stream so far.
    var errors: String { output.errors }

    /// Forgets what was written so far.
    func clearOutput() {
        output.text = ""
        output.errors = ""
    }

    /// Everything a bad input must leave as it was: each store's name, actions and encoded state, the
    /// action names, the views and the undo and redo steps.
    func snapshot() -> Snapshot {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        var states: [String] = []
        for store in dispatcher.stores {
            let json: String
            do {
                json = String(decoding: try encoder.encode(AnyEncodable(store.encodableState)), as: UTF8.self)
            } catch {
                json = "<does not encode: \(error)>"
            }
            states.append("\(store.name) [\(store.actionNames.joined(separator: ", "))] = \(json)")
        }
        return Snapshot(
            stores: states,
            actions: dispatcher.registry.names,
            views: host.views.names,
            undo: dispatcher.history.undoLabels,
            redo: dispatcher.history.redoLabels
        )
    }
}

/// What the corpus compares before and after a bad input.
struct Snapshot: Equatable, Sendable, CustomStringConvertible {
    var stores: [String]
    var actions: [String]
    var views: [String]
    var undo: [String]
    var redo: [String]

    var description: String {
        (stores + ["actions: \(actions)", "views: \(views)", "undo: \(undo)", "redo: \(redo)"]).joined(separator: "\n")
    }

    /// The lines that differ from `other`, for a failure message.
    func difference(from other: Snapshot) -> String {
        let mine = description.split(separator: "\n"), theirs = other.description.split(separator: "\n")
        let changed = zip(mine, theirs).filter { $0 != $1 }.map { "- \($1)\n+ \($0)" }
        let extra = mine.count == theirs.count ? [] : ["(\(theirs.count) lines before, \(mine.count) after)"]
        return (changed + extra).joined(separator: "\n")
    }
}

private struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
