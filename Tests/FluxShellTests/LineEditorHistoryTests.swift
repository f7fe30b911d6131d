import Foundation
import Testing
@testable import FluxShell

extension LineEditorTests {
    @Suite("History")
    final class History {
        let directory: String

        init() throws {
            directory = NSTemporaryDirectory() + "fluxsh-history-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }

        deinit {
            try? FileManager.default.removeItem(atPath: directory)
        }

        private func lines(of path: String) throws -> [String] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        }

        @Test("the history file is $XDG_STATE_HOME/fluxsh/history when XDG_STATE_HOME is set")
        func xdgStateHome() {
            let path = LineHistory.standardPath(environment: ["XDG_STATE_HOME": "/var/state", "HOME": "/home/ada"])
            #expect(path == "/var/state/fluxsh/history")
        }

        @Test("without XDG_STATE_HOME, or with an empty or relative one, it is ~/.local/state/fluxsh/history")
        func homeFallback() {
            for environment in [["HOME": "/home/ada"],
                                ["XDG_STATE_HOME": "", "HOME": "/home/ada"],
                                ["XDG_STATE_HOME": "state", "HOME": "/home/ada"]] {
                #expect(LineHistory.standardPath(environment: environment) == "/home/ada/.local/state/fluxsh/history")
            }
        }

        @Test("the directories and the file are created when the first entry is added, private to the user")
        func createdOnDemand() throws {
            let path = try #require(LineHistory.standardPath(environment: ["HOME": directory]))
            let history = LineHistory(path: path)
            #expect(history.entries.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: directory + "/.local"))

            #expect(history.add("print(1)"))
            #expect(try lines(of: path) == ["print(1)"])
            let folder = try FileManager.default.attributesOfItem(atPath: directory + "/.local/state/fluxsh")
            let file = try FileManager.default.attributesOfItem(atPath: path)
            #expect((folder[.posixPermissions] as? Int) == 0o700)
            #expect((file[.posixPermissions] as? Int) == 0o600)
            #expect(history.lastError == nil)
        }

        @Test("entries are kept between runs: a new history reads the file")
        func keptBetweenRuns() throws {
            let path = directory + "/history"
            let first = LineHistory(path: path)
            first.add(":load game.lua")
            first.add("flux.dispatch('x')")
            #expect(LineHistory(path: path).entries == [":load game.lua", "flux.dispatch('x')"])
        }

        @Test("blank entries and immediate repeats are not added; earlier repeats are")
        func noBlankNoRepeat() throws {
            let path = directory + "/history"
            let history = LineHistory(path: path)
            let added = ["a", "a", "", "  \t", "b", "a", "a"].map { history.add($0) }
            #expect(added == [true, false, false, false, true, true, false])
            #expect(history.entries == ["a", "b", "a"])
            #expect(try lines(of: path) == ["a", "b", "a"])
            // The repeat rule holds across runs too.
            #expect(!LineHistory(path: path).add("a"))
        }

        @Test("the history keeps its last `limit` entries, in memory and in the file")
        func sizeBound() throws {
            let path = directory + "/history"
            let history = LineHistory(path: path, limit: 3)
            for index in 1...5 { history.add("line \(index)") }
            #expect(history.entries == ["line 3", "line 4", "line 5"])
            #expect(try lines(of: path) == ["line 3", "line 4", "line 5"])
            #expect(LineHistory(path: path, limit: 3).entries == ["line 3", "line 4", "line 5"])
            #expect(LineHistory.defaultLimit == 1000)
        }

        @Test("a file longer than the limit is read from its end and cut back at the next entry")
        func longFile() throws {
            let path = directory + "/history"
            try (1...10).map { "old \($0)\n" }.joined().write(toFile: path, atomically: true, encoding: .utf8)
            let history = LineHistory(path: path, limit: 4)
            #expect(history.entries == ["old 7", "old 8", "old 9", "old 10"])
            history.add("new")
            #expect(try lines(of: path) == ["old 8", "old 9", "old 10", "new"])
        }

        @Test("a multi-line entry, and one with backslashes, comes back as the same single entry")
        func multiLineEntries() throws {
            let path = directory + "/history"
            let chunk = "for i = 1, 3 do\n  print(i)\nend"
            let escapes = #"print("a\nb\\c")"#
            let history = LineHistory(path: path)
            history.add(chunk)
            history.add(escapes)
            #expect(try lines(of: path).count == 2)
            #expect(LineHistory(path: path).entries == [chunk, escapes])
        }

        @Test("two shells sharing the file both keep their entries")
        func twoSessions() throws {
            let path = directory + "/history"
            let one = LineHistory(path: path)
            let two = LineHistory(path: path)
            one.add("from one")
            two.add("from two")
            #expect(LineHistory(path: path).entries == ["from one", "from two"])
        }

        @Test("with no path the history lives in memory only")
        func inMemory() {
            let history = LineHistory(path: nil, limit: 2)
            history.add("a")
            history.add("b")
            history.add("c")
            #expect(history.entries == ["b", "c"])
            #expect(history.path == nil)
        }

        @Test("a file that cannot be written is reported, and the history carries on in memory")
        func unwritableFile() throws {
            let blocker = directory + "/not-a-directory"
            try "".write(toFile: blocker, atomically: true, encoding: .utf8)
            let history = LineHistory(path: blocker + "/history")
            #expect(history.add("x"))
            #expect(history.entries == ["x"])
            #expect(history.lastError != nil)
        }
    }
}
