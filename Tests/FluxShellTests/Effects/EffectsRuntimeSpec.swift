import FluxEffects
import Foundation
import Testing

/// The effects runtime as a Swift feature uses it: timers on a virtual or the real clock, processes,
/// watches, owners, and bad input.
@Suite("Effects runtime", .serialized)
struct EffectsRuntimeSpec {
    let owner = EffectOwner("swift spec")

    @Test("on the virtual clock, advance fires every due timer in time order and returns how many fired")
    func virtualOrder() throws {
        let effects = Effects(clock: .virtual)
        var fired: [String] = []
        try effects.after(300, owner: owner) { fired.append("after 300") }
        try effects.every(100, owner: owner) { fired.append("every 100 at \(Int(effects.now))") }
        try effects.after(100, owner: owner) { fired.append("after 100") }
        #expect(try effects.advance(by: 99) == 0)
        #expect(try effects.advance(by: 201) == 5)
        // At 300 the one set first fires first: `after 300` was set before `every` was set again at 200.
        #expect(fired == ["every 100 at 100", "after 100", "every 100 at 200", "after 300", "every 100 at 300"])
        #expect(effects.live.map(\.kind) == [.every])
        effects.endAll()
        #expect(effects.isEmpty)
    }

    @Test("a timer set by a callback fires in the same advance when it falls due; a cancelled one never")
    func nestedAndCancelled() throws {
        let effects = Effects(clock: .virtual)
        var fired: [Int] = []
        try effects.after(10, owner: owner) {
            fired.append(10)
            _ = try? effects.after(5, owner: owner) { fired.append(15) }
        }
        let cancelled = try effects.after(12, owner: owner) { fired.append(12) }
        cancelled.cancel()
        cancelled.cancel() // idempotent
        #expect(try effects.advance(by: 20) == 2)
        #expect(fired == [10, 15])
        #expect(effects.isEmpty)
    }

    @Test("a repeating timer that cancels itself fires no more", arguments: [Effects.Clock.virtual, .real])
    func selfCancel(clock: Effects.Clock) throws {
        let effects = Effects(clock: clock)
        var count = 0
        var timer: Effect?
        timer = try effects.every(1, owner: owner) {
            count += 1
            if count == 3 { timer?.cancel() }
        }
        if clock == .virtual { _ = try effects.advance(by: 100) } else { effects.runUntilIdle(timeout: 2000) }
        #expect(count == 3)
        #expect(effects.isEmpty)
    }

    @Test("negative, NaN, infinite and huge delays are refused with what is allowed, and start nothing",
          arguments: [-1, Double.nan, Double.infinity, -Double.infinity, 1e300])
    func badDelays(delay: Double) {
        let effects = Effects(clock: .virtual)
        #expect(throws: EffectError.self) { try effects.after(delay, owner: owner) {} }
        #expect(throws: EffectError.self) { try effects.every(delay, owner: owner) {} }
        #expect(throws: EffectError.self) { try effects.every(0, owner: owner) {} }
        #expect(effects.isEmpty)
        do {
            try effects.after(delay, owner: owner) {}
        } catch {
            #expect("\(error)".contains("milliseconds from 0 to"))
        }
    }

    @Test("10,000 live timers fire once each, in order, and leave nothing behind", arguments: [Effects.Clock.virtual, .real])
    func tenThousandTimers(clock: Effects.Clock) throws {
        let effects = Effects(clock: clock)
        var last = -1
        var inOrder = true
        var count = 0
        for index in 0 ..< 10_000 {
            try effects.after(Double(index / 100), owner: owner) {
                if index < last { inOrder = false }
                last = index
                count += 1
            }
        }
        #expect(effects.live.count == 10_000)
        if clock == .virtual {
            #expect(try effects.advance(by: 100) == 10_000)
        } else {
            #expect(effects.runUntilIdle(timeout: 10_000))
        }
        #expect(count == 10_000)
        #expect(inOrder)
        #expect(effects.isEmpty)
    }

    @Test("advance is refused on the real clock and inside a timer's callback")
    func advanceRefused() throws {
        #expect(throws: EffectError.self) { try Effects(clock: .real).advance(by: 10) }
        let effects = Effects(clock: .virtual)
        var inner: (any Error)?
        try effects.after(1, owner: owner) {
            do { _ = try effects.advance(by: 1) } catch { inner = error }
        }
        _ = try effects.advance(by: 5)
        #expect(inner != nil)
    }

    @Test("a process's lines arrive one by one from both streams, then its exit code; argv is not split by a shell")
    func processLines() throws {
        let effects = Effects()
        var lines: [String] = []
        var exit: (Int?, Int32?)?
        let effect = try effects.spawn(["/bin/sh", "-c", "printf 'a\\nb\\r\\nlast'; echo oops >&2; exit 7", "ignored; rm -rf /"],
                                       owner: owner, onLine: { lines.append("\($1.rawValue): \($0)") }, onExit: { exit = ($0, $1) })
        #expect(effect.pid ?? 0 > 0)
        try effects.settle(timeout: 5000)
        #expect(lines.filter { $0.hasPrefix("stdout") } == ["stdout: a", "stdout: b", "stdout: last"])
        #expect(lines.contains("stderr: oops"))
        #expect(exit?.0 == 7 && exit?.1 == nil)
        #expect(effects.isEmpty)
    }

    @Test("standard input: text given, written later, closed; a process that closed its input does not end the shell")
    func processInput() throws {
        let effects = Effects()
        var lines: [String] = []
        try effects.spawn(["cat"], options: .init(input: .text("one\ntwo\n")), owner: owner, onLine: { line, _ in lines.append(line) }, onExit: { _, _ in })
        let open = try effects.spawn(["cat"], options: .init(input: .open), owner: owner, onLine: { line, _ in lines.append(line) }, onExit: { _, _ in })
        try open.write("three\n")
        open.closeInput()
        let closed = try effects.spawn(["/bin/sh", "-c", "exec 0<&-; sleep 0.2"], options: .init(input: .open), owner: owner, onLine: { _, _ in }, onExit: { _, _ in })
        usleep(100_000)
        _ = try? closed.write(String(repeating: "x", count: 1 << 20)) // EPIPE, not SIGPIPE
        try effects.settle(timeout: 5000)
        #expect(lines.sorted() == ["one", "three", "two"])
    }

    @Test("a missing program, a folder that is not there and an empty command are errors naming them")
    func missingProgram() {
        let effects = Effects()
        #expect(throws: EffectError("cannot run no-such-program-here: no such program on PATH")) {
            try effects.spawn(["no-such-program-here"], owner: owner, onLine: { _, _ in }, onExit: { _, _ in })
        }
        #expect(throws: EffectError("cannot run ls in /no/such/folder: no such folder")) {
            try effects.spawn(["ls"], options: .init(directory: "/no/such/folder"), owner: owner, onLine: { _, _ in }, onExit: { _, _ in })
        }
        #expect(throws: EffectError.self) { try effects.spawn([], owner: owner, onLine: { _, _ in }, onExit: { _, _ in }) }
        #expect(effects.isEmpty)
    }

    @Test("a zero byte in an argument, or an environment name with '=', is refused, not cut short in silence")
    func argumentsThatCCannotCarry() {
        let effects = Effects()
        #expect(throws: EffectError("item 2 of the command holds a zero byte, which no program's argument can")) {
            try effects.spawn(["echo", "a\0b"], owner: owner, onLine: { _, _ in }, onExit: { _, _ in })
        }
        #expect(throws: EffectError.self) {
            try effects.spawn(["env"], options: .init(environment: ["A=B": "c"]), owner: owner, onLine: { _, _ in }, onExit: { _, _ in })
        }
        #expect(effects.isEmpty)
    }

    @Test("100 processes at once all end and are reaped; past the limit an owner gets a clear error")
    func manyProcesses() throws {
        let effects = Effects()
        effects.processLimit = 100
        var exits = 0
        for _ in 0 ..< 100 {
            try effects.spawn(["/bin/sh", "-c", "echo hi"], owner: owner, onLine: { _, _ in }, onExit: { _, _ in exits += 1 })
        }
        #expect(throws: EffectError.self) {
            try effects.spawn(["true"], owner: owner, onLine: { _, _ in }, onExit: { _, _ in })
        }
        try effects.settle(timeout: 20_000)
        #expect(exits == 100)
        #expect(effects.isEmpty)
        #expect(Self.zombies() == 0)
    }

    @Test("a process that ignores SIGTERM is killed after the grace period when its owner ends; no callback runs after")
    func ignoresTerm() throws {
        let effects = Effects()
        effects.gracePeriod = 200
        var exited = false
        let effect = try effects.spawn(["/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"], owner: owner,
                                       onLine: { _, _ in }, onExit: { _, _ in exited = true })
        let pid = effect.pid!
        usleep(150_000)
        #expect(effects.end(ownedBy: owner) == 1)
        #expect(effects.isEmpty)
        effects.runUntilIdle(timeout: 3000)
        usleep(50_000)
        #expect(kill(pid, 0) != 0) // gone, and reaped
        #expect(!exited)
        #expect(Self.zombies() == 0)
    }

    @Test("timeout_ms ends a process with SIGTERM and on_exit hears the signal")
    func processTimeout() throws {
        let effects = Effects()
        var result: (Int?, Int32?)?
        try effects.spawn(["sleep", "10"], options: .init(timeout: 100), owner: owner, onLine: { _, _ in }, onExit: { result = ($0, $1) })
        try effects.settle(timeout: 5000)
        #expect(result?.0 == nil && result?.1 == SIGTERM)
    }

    @Test("a 10 MB line arrives in 1 MiB pieces, never whole in memory; output stops early without harm")
    func longLine() throws {
        let effects = Effects()
        var pieces: [Int] = []
        try effects.spawn(["/bin/sh", "-c", "head -c 10000000 /dev/zero | tr '\\0' x; echo; echo end"], owner: owner,
                          onLine: { line, _ in pieces.append(line.utf8.count) }, onExit: { _, _ in })
        try effects.spawn(["/bin/sh", "-c", "exec 1>&-; sleep 0.1"], owner: owner, onLine: { _, _ in }, onExit: { _, _ in })
        try effects.settle(timeout: 10_000)
        #expect(pieces.reduce(0, +) == 10_000_000 + 3)
        #expect(pieces.max() == 1 << 20)
        #expect(pieces.last == 3)
    }

    @Test("a watch hears a file change; removing the watched path ends the watch with 'removed'; a missing path is an error")
    func watches() throws {
        let effects = Effects()
        let folder = NSTemporaryDirectory() + "effects-watch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/log.txt"
        FileManager.default.createFile(atPath: file, contents: Data("a\n".utf8))
        var events: [String] = []
        try effects.watch(file, owner: owner) { change, name in events.append("\(change.rawValue) \(name)") }
        let handle = FileHandle(forWritingAtPath: file)!
        handle.seekToEndOfFile()
        handle.write(Data("b\n".utf8))
        try handle.close()
        effects.runUntilIdle(timeout: 200)
        #expect(events.contains("change log.txt"))
        try FileManager.default.removeItem(atPath: folder)
        effects.runUntilIdle(timeout: 1000)
        #expect(events.last?.hasPrefix("removed") == true)
        #expect(effects.isEmpty)
        #expect(throws: EffectError("cannot watch \(file): no such file or folder")) {
            try effects.watch(file, owner: owner) { _, _ in }
        }
    }

    @Test("ending an owner ends its timers, processes and watches and nobody else's")
    func owners() throws {
        let effects = Effects(clock: .virtual)
        let other = EffectOwner("plugin other")
        try effects.every(10, owner: owner) {}
        try effects.spawn(["sleep", "5"], owner: owner, onLine: { _, _ in }, onExit: { _, _ in })
        try effects.watch(NSTemporaryDirectory(), owner: owner) { _, _ in }
        try effects.every(10, owner: other) {}
        #expect(effects.end(ownedBy: owner) == 3)
        #expect(effects.live.map(\.owner) == [other])
        effects.endAll()
        #expect(effects.isEmpty)
        #expect(Self.zombies() == 0)
    }

    /// This process's children that ended and were not reaped.
    static func zombies() -> Int {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            return fields.count > 1 && fields[0] == "Z" && Int32(fields[1]) == me
        }.count
    }
}
