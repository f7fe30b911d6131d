import FluxLua
import FluxTable

extension Shell {
    /// Tables, and values printed as Lua, fit the terminal as it is now, resized or not, unless a width
    /// was configured (or COLUMNS set).
    func followTerminalWidth() {
        if configuration.width == nil { host.renderOptions.width = RenderOptions.detect().width }
        // Two columns spare, for the comma after a nested table's line.
        let width = max(1, host.renderOptions.width - 2)
        guard width != valueWidth else { return }
        valueWidth = width
        _ = try? host.vm.call(setValueWidth, width)
    }

    /// How much of a long text ``print(_:)`` writes before it looks for Ctrl-C again, in bytes.
    static let outputPiece = 4096

    /// Writes `text` and a newline.
    ///
    /// A long text goes out in pieces, and Ctrl-C between two of them drops the rest: on a terminal
    /// that reads slowly, a table of a million rows takes minutes to show, and without this the
    /// interrupt would wait for the last of it (and a second Ctrl-C would end the shell).
    func print(_ text: String) {
        let text = text.hasSuffix("\n") ? text : text + "\n"
        guard text.utf8.count > Self.outputPiece else { return write(text) }
        var rest = text.utf8[...]
        var lineEnded = true
        while !rest.isEmpty {
            if SignalInterrupts.interruptPending {
                return reportMessage((lineEnded ? "" : "\n") + "interrupted: the rest of the output is not shown")
            }
            var end = rest.index(rest.startIndex, offsetBy: Self.outputPiece, limitedBy: rest.endIndex) ?? rest.endIndex
            while end < rest.endIndex, rest[end] & 0xC0 == 0x80 { rest.formIndex(after: &end) } // whole characters
            write(String(Substring(rest[..<end])))
            lineEnded = rest[rest.index(before: end)] == UInt8(ascii: "\n")
            rest = rest[end...]
        }
    }

    /// Writes an error: its message, and the traceback of a Lua error.
    func reportError(_ error: any Error) {
        // `expect` and the spec runtime are the shell's own Lua: their frames say nothing to the user.
        let lines = host.describe(error).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        writeError(ScriptRunner.withoutShellFrames(lines).joined(separator: "\n") + "\n")
    }

    /// Writes a one-line error with no traceback (a command's).
    func reportMessage(_ message: String) {
        writeError(message + "\n")
    }

    /// A value as the REPL prints it inside a table.
    func describe(_ value: LuaValue) -> String {
        (try? host.vm.call(pretty, results: 1, arguments: { lua in lua.push(value) }) { lua, range in
            lua.string(at: range.lowerBound)
        }) ?? "?"
    }

    /// The state of `store` printed as a Lua table.
    func stateText(of store: String) throws -> String {
        let copy = try host.state(ofStoreNamed: store)
        return try host.vm.call(pretty, results: 1, arguments: { lua in lua.push(copy) }) { lua, range in
            lua.string(at: range.lowerBound) ?? "nil"
        }
    }
}
