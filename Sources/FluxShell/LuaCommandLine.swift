import ArgumentParser
import FluxLua
import Foundation

/// What `fluxsh` takes as `lua` does: `-l MOD`, `-e STAT`, `-i`, and a script with its arguments.
///
/// ```
/// fluxsh game.lua 3 fast        # arg = {[0] = "game.lua", "3", "fast"}; ... = "3", "fast"
/// fluxsh -l json -e 'print(json)'
/// fluxsh -i setup.lua           # the script, then the prompt
/// fluxsh - a b < game.lua       # the script from standard input
/// ```
struct LuaCommandLine: ParsableArguments {
    @Option(name: .customShort("l"), help: ArgumentHelp("Require a module into the global of its name, before -e and the script (repeatable).", valueName: "mod"))
    var libraries: [String] = []

    @Option(name: .customShort("e"), help: ArgumentHelp("Run a Lua statement, before the script (repeatable).", valueName: "stat"))
    var statements: [String] = []

    @Flag(name: .customShort("i"), help: "Enter the prompt after running the script or statements.")
    var interactive = false

    @Argument(help: ArgumentHelp("A Lua script to run instead of the prompt.", valueName: "script"))
    var script: String?

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The script's arguments: Lua's `arg` table and `...`.", valueName: "args"))
    var arguments: [String] = []

    /// Whether anything is to run before (or instead of) the prompt.
    var runsCode: Bool { script != nil || !statements.isEmpty || !libraries.isEmpty }

    /// Whether the prompt follows: asked with -i, or nothing else to do.
    var wantsPrompt: Bool { interactive || !runsCode }

    /// Runs the modules, statements and script in `shell`, in that order, stopping at the first error.
    ///
    /// - Returns: false when one failed (its error has been written).
    func run(in shell: Shell) -> Bool {
        let vm = shell.host.vm
        do {
            for module in libraries {
                let load = try vm.load("local name = ...; _G[name] = require(name)", chunkName: "=(command line)")
                _ = try vm.call(load, module)
            }
            // As typed: bytes that are not UTF-8 reach Lua as they are, not repaired.
            let raw = Self.rawStatements(matching: statements)
            for (statement, bytes) in zip(statements, raw) {
                if let bytes {
                    try vm.run(bytes: bytes, chunkName: "=(command line)")
                } else {
                    try shell.host.run(statement, chunkName: "=(command line)")
                }
            }
            if let script {
                try setArgumentTable(script, in: vm)
                // `-` is standard input, as in lua: `fluxsh - <<'EOF'`.
                // Bytes, as lua reads them: a string literal keeps those that are not UTF-8.
                let chunk = script == "-"
                    ? try vm.load(bytes: try FluxHost.sourceBytes(FileHandle.standardInput.readDataToEndOfFile(), from: "stdin"), chunkName: "=stdin")
                    : try vm.load(bytes: try FluxHost.readSourceBytes(script), chunkName: "@" + script)
                try vm.call(chunk) { lua in
                    try lua.ensureSpace(Int32(arguments.count))
                    for argument in arguments { lua.push(argument) }
                }
            }
            return true
        } catch {
            shell.reportError(error)
            return false
        }
    }

    /// The bytes of each `-e` statement as the command line gave them (`statements` holds them repaired
    /// to valid UTF-8); nil for one not found there.
    static func rawStatements(matching statements: [String]) -> [[UInt8]?] {
        var found: [[UInt8]] = []
        var index = 1
        while index < Int(CommandLine.argc), let pointer = CommandLine.unsafeArgv[index] {
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            if bytes == Array("-e".utf8), index + 1 < Int(CommandLine.argc), let next = CommandLine.unsafeArgv[index + 1] {
                found.append(Array(UnsafeBufferPointer(start: UnsafeRawPointer(next).assumingMemoryBound(to: UInt8.self), count: strlen(next))))
                index += 2
                continue
            }
            if bytes.count > 2, bytes.starts(with: Array("-e".utf8)) { found.append(Array(bytes.dropFirst(2))) }
            index += 1
        }
        return statements.enumerated().map { position, statement in
            guard position < found.count, String(decoding: found[position], as: UTF8.self) == statement else { return nil }
            return found[position]
        }
    }

    /// `arg` as lua.c sets it: the script at 0, its arguments from 1, what came before it below 0.
    private func setArgumentTable(_ script: String, in vm: LuaVM) throws {
        let line = CommandLine.arguments
        let scriptIndex = max(0, line.count - arguments.count - 1)
        let fill = try vm.load("""
            local base, t = ..., {}
            for i = 2, select('#', ...) do t[i - 2 - base] = (select(i, ...)) end
            arg = t
            """, chunkName: "=(command line)")
        try vm.call(fill) { lua in
            try lua.ensureSpace(Int32(line.count) + 1)
            lua.push(scriptIndex)
            for word in line { lua.push(word) }
        }
    }
}
