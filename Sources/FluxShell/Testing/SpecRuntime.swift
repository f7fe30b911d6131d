import Flux
import FluxLua
import Foundation

/// The host's side of the spec runtime (``SpecPrelude``): puts the stores back between tests, records
/// the actions a `flux.test_store` must receive, loads plugins for `flux.load`, and hands each test's
/// result to the runner.
///
/// Installed in a shell that runs scripts (`fluxsh run`, `fluxsh test`); it adds the globals `describe`,
/// `context`, `it`, `pending`, `before_each`, `after_each`, `expect_snapshot` and the functions
/// `flux.test_store` and `flux.load`.
final class SpecRuntime {
    /// How tests are picked and run.
    struct Options {
        /// Only the tests whose full name (describes and `it`, joined by spaces) contains it run.
        var filter: String?
        /// After a test fails, the script's later tests do not run (`-x`).
        var stopAtFirstFailure = false
        /// Tests are reported as listed, not run (`--list`).
        var listing = false
        /// `expect_snapshot` writes its golden file instead of comparing (`--update-snapshots`).
        var updatingSnapshots = false
    }

    private weak var shell: Shell?
    let options: Options
    /// Told of each test as it ends.
    var onResult: (SpecResult) -> Void
    /// Every test reported, in order.
    private(set) var results: [SpecResult] = []
    /// The states stores are put back to before each test: one level for each outermost describe
    /// running (a describe can be declared inside a plugin a test loads, hence a stack).
    private var baselines: [[ObjectIdentifier: (target: any TransactionalTarget, state: Any)]] = []
    private let received = ReceivedActions()

    private init(shell: Shell, options: Options, onResult: @escaping (SpecResult) -> Void) {
        self.shell = shell
        self.options = options
        self.onResult = onResult
    }

    /// Installs the spec runtime in `shell`. The shell's Lua holds it weakly: keep the runtime as long as
    /// the shell runs scripts.
    static func install(in shell: Shell, options: Options = Options(), onResult: @escaping (SpecResult) -> Void) -> SpecRuntime {
        let runtime = SpecRuntime(shell: shell, options: options, onResult: onResult)
        shell.dispatcher.middleware.append(runtime.received)
        let vm = shell.host.vm
        do {
            let chunk = try vm.load(SpecPrelude.source, chunkName: "=fluxsh")
            try vm.call(chunk) { lua in
                runtime.pushHooks(on: lua)
                _ = lua.getGlobal("expect")
                lua.push(shell.pretty)
            }
        } catch {
            preconditionFailure("the spec runtime does not load: \(error)")
        }
        return runtime
    }

    private func pushHooks(on lua: LuaStack) {
        lua.pushTable()
        func hook(_ name: String, _ body: @escaping LuaFunction) {
            lua.push(function: body)
            lua.rawSet(name, in: -2)
        }
        func flag(_ name: String, _ value: @escaping (SpecRuntime) -> Bool) {
            hook(name) { [weak self] lua in
                lua.push(self.map(value) ?? false)
                return 1
            }
        }
        flag("listing") { $0.options.listing }
        flag("stops") { $0.options.stopAtFirstFailure }
        flag("updating_snapshots") { $0.options.updatingSnapshots }
        hook("selected") { [weak self] lua in
            let name = lua.string(at: 1) ?? ""
            lua.push(self?.options.filter.map { name.contains($0) } ?? true)
            return 1
        }
        hook("clock") { lua in
            lua.push(Double(DispatchTime.now().uptimeNanoseconds) / 1e9)
            return 1
        }
        hook("capture_stores") { [weak self] _ in
            self?.capture()
            return 0
        }
        hook("restore_stores") { [weak self] _ in
            self?.restoreStores()
            return 0
        }
        hook("release_stores") { [weak self] _ in
            self?.release()
            return 0
        }
        hook("report") { [weak self] lua in
            let result = try lua.decode(SpecResult.self, at: 1, root: "result")
            self?.results.append(result)
            self?.onResult(result)
            return 0
        }
        hook("write_file") { lua in
            guard let folder = lua.string(at: 1), let path = lua.string(at: 2), let text = lua.string(at: 3) else { return 0 }
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                lua.push(true)
                return 1
            } catch {
                lua.push(false)
                lua.push("cannot write \(path): \(error.localizedDescription)")
                return 2
            }
        }
        hook("start_recording") { [weak self] lua in
            guard let self, let shell, let name = lua.string(at: 1) else { return 0 }
            guard let store = shell.dispatcher.store(named: name) else {
                let names = shell.dispatcher.stores.map(\.name).joined(separator: ", ")
                throw SpecHookError("no store '\(name)' (stores: \(names.isEmpty ? "none" : names))")
            }
            received.listen(to: name)
            try lua.push(store.encodableState)
            return 1
        }
        hook("stop_recording") { [weak self] lua in
            if let name = lua.string(at: 1) { self?.received.stopListening(to: name) }
            return 0
        }
        hook("take_actions") { [weak self] lua in
            let entries = lua.string(at: 1).flatMap { self?.received.take(for: $0) } ?? []
            lua.pushTable(arrayCapacity: Int32(entries.count))
            for (index, entry) in entries.enumerated() {
                lua.pushTable()
                lua.push(entry.name)
                lua.rawSet("name", in: -2)
                try lua.push(entry.action)
                lua.rawSet("payload", in: -2)
                try lua.push(entry.state)
                lua.rawSet("state", in: -2)
                lua.rawSet(index + 1, in: -2)
            }
            return 1
        }
        hook("load") { [weak self] lua in
            guard let shell = self?.shell, let path = lua.string(at: 1) else { return 0 }
            let resolved = Self.resolve(path, from: lua.string(at: 2))
            try shell.host.loadPlugin(at: resolved)
            return 0
        }
    }

    /// `path` as `flux.load` reads it: a relative path from the folder of the script calling it, when it
    /// names something there, else from the working folder (as `:load` reads it).
    static func resolve(_ path: String, from script: String?) -> String {
        guard !path.hasPrefix("/"), let script else { return path }
        let folder = PathParts.folder(of: script)
        let candidate = folder.isEmpty ? path : folder + "/" + path
        return FileManager.default.fileExists(atPath: candidate) ? candidate : path
    }

    /// What the session had before the specs ran: whether it journalled, and the undo history.
    private var saved: (journalling: Bool, undo: [HistoryEntry], redo: [HistoryEntry])?

    /// Takes the stores' states as the outermost describe begins. The session is set aside until the
    /// describe ends: nothing a test does is journalled, and the undo history comes back as it was.
    private func capture() {
        guard let shell else { return }
        if baselines.isEmpty {
            let steps = shell.dispatcher.history.steps
            saved = (shell.session?.isJournalling ?? false, steps.undo, steps.redo)
            shell.session?.isJournalling = false
        }
        baselines.append([:])
        restoreStores()
    }

    /// Puts the stores back as the outermost describe found them, and the session's journal and history.
    private func release() {
        guard let shell else { return }
        restoreStores()
        _ = baselines.popLast()
        if baselines.isEmpty, let saved {
            self.saved = nil
            if saved.journalling { shell.session?.isJournalling = true }
            if let note = shell.dispatcher.history.replaceSteps(undo: saved.undo, redo: saved.redo) { shell.writeError(note + "\n") }
        }
    }

    /// Puts every store back to its state when the running outermost describe began (a store first
    /// seen since — defined or loaded by a test — to its state when first seen), with no undo history:
    /// the test starts clean, and nothing of it is journalled or undoable.
    func restoreStores() {
        guard let shell, !baselines.isEmpty, !shell.dispatcher.isDispatching else { return }
        var baseline = baselines.removeLast()
        var restored: [any TransactionalTarget] = []
        for store in shell.dispatcher.stores {
            guard let target = store as? any TransactionalTarget else { continue }
            let id = ObjectIdentifier(target)
            if let kept = baseline[id] {
                target.restore(kept.state)
                restored.append(target)
            } else {
                baseline[id] = (target, target.snapshot())
            }
        }
        baselines.append(baseline)
        shell.dispatcher.history.clear()
        for target in restored { target.publish() }
    }
}

/// What a spec reported about one test.
public struct SpecResult: Codable, Equatable, Sendable {
    /// How a test ended.
    public enum Status: String, Codable, Sendable {
        case passed, failed, pending
        /// Named by `--list`, not run.
        case listed
    }

    /// The names of its describes, outermost first, then its own.
    public var names: [String]
    /// The script and line of its `it`.
    public var file: String
    public var line: Int
    public var status: Status
    /// Why it failed: the message, led by the failing line.
    public var message: String?
    /// The traceback from the failing line down to the test's function.
    public var traceback: String?
    public var milliseconds: Double?

    /// Its describes' names and its own, joined by spaces, as `--filter` matches it.
    public var fullName: String { names.joined(separator: " ") }
}

/// An error a spec hook raises in Lua, with its message.
struct SpecHookError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
