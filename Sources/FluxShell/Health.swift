import Flux
import FluxLua
import FluxTable
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `:health`: the shell's own checks — Lua, readline, libuv, the session database, the history file,
/// the terminal, the user's config — then each plugin's, as Neovim's `:checkhealth`: every finding ok,
/// a warning or an error, with advice.
extension Shell {
    /// `:health`.
    ///
    /// - Throws: when any check is an error (the listing has been printed).
    func checkHealth() throws {
        var sections: [(title: String, checks: [HealthCheck])] = [("fluxsh", hostChecks())]
        for plugin in host.plugins {
            let checks = host.checkHealth(of: plugin)
            let version = plugin.manifest?.version.map { " \($0)" } ?? ""
            sections.append(("plugin \(plugin.name)\(version)", checks.isEmpty ? [HealthCheck(.ok, "loaded (no health check of its own)")] : checks))
        }
        for (name, reason) in host.pluginErrors.sorted(by: { $0.key < $1.key }) where !host.plugins.contains(where: { $0.name == name }) {
            sections.append(("plugin \(name)", [HealthCheck(.error, "not loaded: \(reason)", advice: "install or fix what the chain names, then :load it")]))
        }
        var lines: [String] = []
        var counts: [HealthCheck.Status: Int] = [:]
        for section in sections {
            lines.append(section.title)
            for check in section.checks {
                counts[check.status, default: 0] += 1
                lines.append("  " + check.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + check.message)
                if let advice = check.advice { lines.append("           → " + advice) }
            }
        }
        let errors = counts[.error] ?? 0, warnings = counts[.warning] ?? 0
        lines.append("\(counts[.ok] ?? 0) ok, \(warnings) warning\(warnings == 1 ? "" : "s"), \(errors) error\(errors == 1 ? "" : "s")")
        print(lines.joined(separator: "\n"))
        if errors > 0 { throw ShellCommandError.failed("\(errors) health check\(errors == 1 ? "" : "s") failed (see the advice above)") }
    }

    /// The shell's own checks.
    func hostChecks(environment: [String: String] = ProcessInfo.processInfo.environment) -> [HealthCheck] {
        var checks: [HealthCheck] = []
        // Lua
        if case let .string(version) = host.vm.global("_VERSION"), version == "Lua 5.4" {
            checks.append(HealthCheck(.ok, version))
        } else {
            checks.append(HealthCheck(.error, "the Lua in use is not 5.4", advice: "install liblua5.4-dev and rebuild"))
        }
        // readline
        // Read through the loader: a C global is shared mutable state to Swift.
        if let symbol = dlsym(nil, "rl_library_version"), let version = symbol.load(as: UnsafePointer<CChar>?.self) {
            checks.append(HealthCheck(.ok, "readline \(String(cString: version))"))
        } else {
            checks.append(HealthCheck(.warning, "readline's version is unknown"))
        }
        // libuv
        if let handle = dlopen("libuv.so.1", RTLD_LAZY) {
            dlclose(handle)
            checks.append(HealthCheck(.ok, "libuv present"))
        } else {
            checks.append(HealthCheck(.warning, "libuv not found (libuv.so.1)", advice: "install it: apt-get install libuv1"))
        }
        // The session database
        if let session {
            checks.append(Self.sessionCheck(path: session.path))
        } else {
            checks.append(HealthCheck(.ok, "no session kept (fluxsh --session NAME keeps one)"))
        }
        // The history file
        if let path = LineHistory.standardPath(environment: environment) {
            if let problem = LineHistory.writeProblem(path) {
                checks.append(HealthCheck(.warning, "history not saved: \(problem)", advice: "make \(PathParts.folder(of: path)) writable, or set XDG_STATE_HOME"))
            } else {
                checks.append(HealthCheck(.ok, "history file \(path)"))
            }
        } else {
            checks.append(HealthCheck(.warning, "no home folder: the history is not saved", advice: "set HOME or XDG_STATE_HOME"))
        }
        // The terminal
        let locale = environment["LC_ALL"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["LC_CTYPE"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["LANG"] ?? ""
        if locale.uppercased().contains("UTF-8") || locale.uppercased().contains("UTF8") {
            checks.append(HealthCheck(.ok, "UTF-8 locale (\(locale))"))
        } else {
            checks.append(HealthCheck(.warning, "the locale is not UTF-8 (\(locale.isEmpty ? "unset" : locale)): tables use ASCII marks",
                                      advice: "set LANG=C.UTF-8 (or another UTF-8 locale)"))
        }
        if RenderOptions.detect().color && configuration.color {
            checks.append(HealthCheck(.ok, "colour (TERM=\(environment["TERM"] ?? ""))"))
        } else {
            checks.append(HealthCheck(.warning, "tables render without colour (not a terminal, TERM=\(environment["TERM"] ?? "unset"), NO_COLOR or --no-color)",
                                      advice: "run fluxsh in a colour terminal to see colour"))
        }
        // The user's config
        if let config = configuration.userConfig {
            if let error = configError {
                checks.append(HealthCheck(.error, "\(config.initFile) failed: " + (error.split(separator: "\n").first.map(String.init) ?? ""),
                                          advice: "fix it (fluxsh --clean starts without it)"))
            } else if FileManager.default.fileExists(atPath: config.initFile) {
                checks.append(HealthCheck(.ok, "config \(config.initFile)"))
            } else {
                checks.append(HealthCheck(.ok, "no config (\(config.initFile) would run at start)"))
            }
        } else {
            checks.append(HealthCheck(.ok, "started without the user's config (--clean)"))
        }
        return checks
    }

    /// Whether the session database at `path` is an SQLite file that can be written.
    static func sessionCheck(path: String) -> HealthCheck {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return HealthCheck(.error, "the session database \(path) cannot be read", advice: "check its permissions")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        guard header == Data("SQLite format 3\0".utf8) else {
            return HealthCheck(.error, "the session database \(path) is not an SQLite database", advice: "start afresh with --fresh (the old file is kept aside)")
        }
        let folder = PathParts.folder(of: path)
        guard access(path, W_OK) == 0, access(folder.isEmpty ? "." : folder, W_OK) == 0 else {
            return HealthCheck(.error, "the session database \(path) is not writable", advice: "check the permissions of it and its folder")
        }
        return HealthCheck(.ok, "session database \(path)")
    }
}
