import Foundation
import Testing

/// `:record` in one process, `:replay` in another: every store ends byte for byte the same.
@Suite("Record and replay across processes")
struct RecordReplaySpec {
    static func script(seed: UInt64, lines: Int) -> [String] {
        var random = SeededRandom(seed: seed)
        func number() -> String {
            switch random.next() % 6 {
            case 0: return "\(Int(random.next() % 20) - 10)"
            case 1: return "\(random.next() % 9).0"                       // a float holding a whole number
            case 2: return "\(random.next() % 100) / 7"                   // a float with a long fraction
            case 3: return "\(9_007_199_254_740_993 + Int(random.next() % 50))" // past 2^53
            case 4: return "-0.0"
            default: return "1e\(Int(random.next() % 40) - 20)"
            }
        }
        return (1 ... lines).map { line in
            switch random.next() % 8 {
            case 0, 1, 2: return #"flux.dispatch("bag.add", {n = \#(random.next() % 3 == 0 ? 3 : 1), f = \#(number()), tag = "t\#(line)"})"#
            case 3: return ":dispatch ticTacToe.placeToken {index = \(random.next() % 9)}"
            case 4: return #"flux.group("g\#(line)", function() flux.dispatch("bag.add", {n = 3, f = \#(number()), tag = "g"}) flux.dispatch("bag.tick") end)"#
            case 5: return ":undo"
            case 6: return ":redo"
            default: return "for i = 1, \(random.next() % 5 + 1) do flux.dispatch('bag.tick') end"
            }
        }
    }

    /// A new folder holding the plugin `bag.lua`.
    static func folderWithBag(_ name: String) throws -> String {
        let folder = temporaryPath(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try SessionCrashSpec.plugin.write(toFile: folder + "/bag.lua", atomically: true, encoding: .utf8)
        return folder
    }

    /// What `:state` printed: every store, from the first.
    static func stores(in output: String) -> String {
        output.components(separatedBy: "\n").drop { !$0.hasPrefix("annotationFilter = ") }.joined(separator: "\n")
    }

    @Test("random actions (follow-ups, floats, integers past 2^53, groups, undo, redo) recorded, then replayed in a new process: identical stores", arguments: 1 ... 12)
    func roundTrip(seed: UInt64) throws {
        let folder = try Self.folderWithBag("replay")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = ["--no-color", "--plugins", folder]
        let lines = Self.script(seed: seed, lines: 40)
        let recorded = try FluxshProcess.run(arguments, input: ":record \(folder)/log\n" + lines.joined(separator: "\n")
                                             + "\n:record\n:state\n:history\n", in: folder)
        let replayed = try FluxshProcess.run(arguments, input: ":replay \(folder)/log\n:state\n:history\n", in: folder)
        #expect(replayed.errors.isEmpty)
        #expect(!Self.stores(in: recorded.output).isEmpty)
        #expect(Self.stores(in: replayed.output) == Self.stores(in: recorded.output))
        let log = try String(contentsOfFile: folder + "/log", encoding: .utf8)
        #expect(log.contains(#""followUp":true"#) || !recorded.output.contains("echoed = 3"))
    }

    @Test("the same with :goto in a session: the recording and the journal's export replay in a new process to identical stores",
          arguments: 1 ... 6)
    func roundTripWithGoto(seed: UInt64) throws {
        let folder = try Self.folderWithBag("replay-goto")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = ["--no-color", "--plugins", folder]
        var random = SeededRandom(seed: seed &+ 1_000)
        let lines = Self.script(seed: seed, lines: 40).enumerated().map { index, line in
            // An entry that may lie past the journal's end: that goto is refused and changes nothing.
            random.next() % 4 == 0 ? ":goto \(random.next() % UInt64(index + 1))" : line
        }
        let recorded = try FluxshProcess.run(arguments + ["--session", "goto"], input: ":record \(folder)/log\n"
                                             + lines.joined(separator: "\n") + "\n:record\n:export \(folder)/journal\n:state\n",
                                             in: folder, environment: ["XDG_STATE_HOME": folder])
        #expect(recorded.output.contains("at journal entry @"))
        #expect(!Self.stores(in: recorded.output).isEmpty)
        for log in ["log", "journal"] {
            let replayed = try FluxshProcess.run(arguments, input: ":replay \(folder)/\(log)\n:state\n", in: folder)
            #expect(replayed.errors.isEmpty, "\(log)")
            #expect(Self.stores(in: replayed.output) == Self.stores(in: recorded.output), "\(log)")
        }
    }
}
