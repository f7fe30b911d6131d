import Foundation
import Testing

/// What running one bad input produced, copied out of its world.
struct CorpusResult: Sendable {
    var before: Snapshot
    var after: Snapshot
    /// The snapshot the outcome calls for (nil: not predictable).
    var expected: Snapshot?
    var failed: Bool
    var errors: String
    /// Whether the shell still ran a plain input afterwards.
    var usableAfterwards: Bool
    /// A setup or reference input that did not succeed, and its error.
    var brokenFixture: String?
}

/// Carries a result from the thread that computed it; read only after that thread signalled.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

enum CorpusRunner {
    /// Runs `body` on a thread with the stack of a process's main thread, as `fluxsh` runs its inputs:
    /// deep recursion through Swift and Lua must stop at Lua's limits, not at a test thread's small stack.
    static func onLargeStack<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.value = body()
            done.signal()
        }
        thread.stackSize = 16 << 20
        thread.start()
        done.wait()
        return box.value!
    }

    /// Runs the case on a thread with a large stack.
    static func run(_ badInput: BadInput) -> CorpusResult {
        onLargeStack { runHere(badInput) }
    }

    private static func runHere(_ badInput: BadInput) -> CorpusResult {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("flux-corpus-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let world = CorpusWorld()
        var broken = world.setupError.map { "the world's setup: \($0)" }
        let line = inputLine(badInput.input, in: folder)
        let path = folder.appendingPathComponent("fixture").path
        for step in badInput.setup where broken == nil {
            let step = step.replacingOccurrences(of: "{path}", with: path)
            if !world.execute(step) { broken = "setup \(step): \(world.errors)" }
        }
        world.clearOutput()
        let before = world.snapshot()
        let failed = !world.execute(line)
        let after = world.snapshot()
        let errors = world.errors
        let usable = world.execute("return 40 + 2") && world.execute("return flux.state('probe').count")

        var expected: Snapshot?
        switch badInput.outcome {
        case .unchanged:
            expected = before
        case let .asIf(inputs, _):
            let reference = CorpusWorld()
            if let error = reference.setupError { broken = "the reference world's setup: \(error)" }
            for step in badInput.setup + inputs where broken == nil {
                if !reference.execute(step) { broken = "reference \(step): \(reference.errors)" }
            }
            expected = reference.snapshot()
        case .unpredictable:
            expected = nil
        }
        return CorpusResult(before: before, after: after, expected: expected, failed: failed, errors: errors,
                            usableAfterwards: usable, brokenFixture: broken)
    }

    /// The line to execute, after making the file a case reads (`{path}` in the case's lines).
    private static func inputLine(_ input: BadInput.Input, in folder: URL) -> String {
        switch input {
        case let .lua(source): return source
        case let .command(line): return line
        case let .file(fixture, command):
            let path = folder.appendingPathComponent("fixture").path
            switch fixture {
            case .missing: break
            case .directory:
                try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            case let .bytes(bytes):
                try? Data(bytes).write(to: URL(fileURLWithPath: path)) // a missing fixture fails the case's check
            case let .text(text):
                try? Data(text.utf8).write(to: URL(fileURLWithPath: path))
            case let .folder(files):
                try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                for (name, text) in files {
                    try? Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
                }
            }
            return command.replacingOccurrences(of: "{path}", with: path)
        }
    }

    /// The corpus's assertions for one case. Each is a plain boolean with its own message, so a
    /// failure shows what went wrong and not the whole snapshot.
    static func check(_ badInput: BadInput) {
        let result = run(badInput)
        let fixtureWorked = result.brokenFixture == nil
        #expect(fixtureWorked, "the case's setup or reference failed: \(result.brokenFixture ?? "")")
        let failed = result.failed
        if badInput.fails {
            #expect(failed, "the input should be reported as failed")
        }
        let named = result.errors.contains(badInput.fragment)
        #expect(named, "the error should contain \"\(badInput.fragment)\"; it was:\n\(result.errors.isEmpty ? "(nothing reported)" : result.errors)")
        if let expected = result.expected {
            let same = result.after == expected
            #expect(same, "the stores changed:\n\(result.after.difference(from: expected))")
        }
        let encodes = !result.after.description.contains("<does not encode")
        #expect(encodes, "a store's state does not encode:\n\(result.after)")
        let usable = result.usableAfterwards
        #expect(usable, "the shell should still run plain input afterwards")
    }
}
