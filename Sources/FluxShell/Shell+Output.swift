import FluxLua
import FluxTable

extension Shell {
    /// Tables fit the terminal as it is now, resized or not, unless a width was configured (or COLUMNS set).
    func followTerminalWidth() {
        guard configuration.width == nil else { return }
        host.renderOptions.width = RenderOptions.detect().width
    }

    /// Writes `text` and a newline.
    func print(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// Writes an error: its message, and the traceback of a Lua error.
    func reportError(_ error: any Error) {
        writeError(host.describe(error) + "\n")
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
