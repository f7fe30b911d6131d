import FluxLua
import Foundation

extension Shell {
    /// What an input compiles to.
    public enum Compiled {
        /// A chunk ready to run.
        case chunk(LuaRef)
        /// A `:` command line.
        case command(String)
        /// The chunk stops before its end: more lines are needed (the REPL's `>>` prompt).
        case incomplete
        /// The chunk does not compile.
        case failed(LuaError)
    }

    /// Compiles `input` as the REPL does: a `:` line is a command; a leading `=` means `return`; an
    /// expression is tried first with `return` before it, so that its value prints.
    ///
    /// `bytes`, when given, are the input's own bytes, not UTF-8 (`input` holds U+FFFD in their place): Lua
    /// compiles those, so a string literal keeps them.
    public func compile(_ input: String, bytes: [UInt8]? = nil) -> Compiled {
        let trimmed = input.drop(while: \.isBlank)
        if trimmed.hasPrefix(":") { return .command(String(trimmed)) }
        var source = bytes ?? Array(input.utf8)
        if trimmed.hasPrefix("=") {
            source = Array("return ".utf8) + source.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.dropFirst()
        }
        if let chunk = try? host.vm.load(bytes: Array("return ".utf8) + source + [UInt8(ascii: ";")], chunkName: "=stdin") {
            return .chunk(chunk)
        }
        do {
            return .chunk(try host.vm.load(bytes: source, chunkName: "=stdin"))
        } catch let error as LuaError {
            if error.kind == .syntax, error.message.hasSuffix("<eof>") { return .incomplete }
            return .failed(error)
        } catch {
            return .failed(LuaError(kind: .syntax, message: "\(error)"))
        }
    }

    /// Runs one complete input as typed at the prompt: a `:` command or a Lua chunk, printing what it
    /// returns.
    ///
    /// - Returns: false when it failed; the error has been written.
    @discardableResult
    public func execute(_ input: String) -> Bool {
        switch compile(input) {
        case let .command(line):
            return runCommand(line)
        case let .chunk(chunk):
            return run(chunk)
        case .incomplete:
            reportError(LuaError(kind: .syntax, message: "stdin: unfinished chunk: more input expected"))
            return false
        case let .failed(error):
            reportError(error)
            return false
        }
    }

    /// Runs a compiled chunk and prints its results.
    ///
    /// - Returns: false when it failed; the error has been written.
    @discardableResult
    public func run(_ chunk: LuaRef) -> Bool {
        followTerminalWidth()
        defer { acknowledge() }
        do {
            // The chunk is called directly, so that its traceback starts at it; its results, still on
            // the stack, go to `show`.
            let text = try host.vm.call(chunk) { lua, results -> String? in
                guard !results.isEmpty else { return nil }
                try lua.ensureSpace(Int32(results.count) + 1)
                lua.push(show)
                for index in results { lua.pushCopy(of: index) }
                do {
                    try lua.pcall(arguments: Int32(results.count), results: 1)
                } catch let error as LuaError where error.kind == .interrupted {
                    // The chunk ran; Ctrl-C stopped the shell writing its value, whose frames are no news.
                    throw LuaError(kind: .interrupted, message: "interrupted while printing the result")
                }
                defer { lua.pop() }
                return lua.string(at: -1)
            }
            if let text { print(text) }
            return true
        } catch {
            reportError(error)
            return false
        }
    }

    /// Runs the script at `path`; its errors are thrown, with file, line and traceback.
    public func runScript(at path: String) throws {
        defer { acknowledge() }
        try host.runFile(path)
    }

    /// The prompt for a first line (`_PROMPT`, else `flux> `) or a continuation line (`_PROMPT2`, else `>> `).
    public func prompt(continuation: Bool) -> String {
        let custom = host.vm.global(continuation ? "_PROMPT2" : "_PROMPT")
        switch custom {
        case let .string(text): return text
        case .nil: return continuation ? ">> " : "flux> "
        default: return describe(custom)
        }
    }

    /// Runs the code in `LUA_INIT_5_4` or `LUA_INIT` (`@file` runs a file), as `lua` does at start.
    ///
    /// - Returns: false when it failed; the error has been written.
    @discardableResult
    public func runInit(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let (name, code) = [("LUA_INIT_5_4", environment["LUA_INIT_5_4"]), ("LUA_INIT", environment["LUA_INIT"])]
            .first(where: { $0.1 != nil }).map({ ($0.0, $0.1!) }) else { return true }
        do {
            if code.hasPrefix("@") {
                try host.runFile(String(code.dropFirst()))
            } else {
                try host.run(code, chunkName: "=" + name)
            }
            return true
        } catch {
            reportError(error)
            return false
        }
    }
}
