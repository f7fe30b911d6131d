import Foundation
import Testing

/// `fluxsh test` as busted and pytest: specs, diffs, the exhaustive test store, plugins in a test,
/// selection, parallel runs, JUnit and TAP, golden files — each as a user sees it in the output.
@Suite("fluxsh test: specs")
struct SpecRunnerSpec {
    @Test("expect names each path that differs, deep, through cycles and state views; no frame of the shell's own")
    func expectDiff() throws {
        let folder = try scriptFolder([
            "diff.lua": """
                local a = {name = "a"}; a.self = a
                local b = {name = "a"}; b.self = b
                expect(a, b, "cycles of equal tables are equal")
                local c = {name = "c"}; c.self = c
                print(select(2, pcall(expect, a, c)))
                print(select(2, pcall(expect, {1, 2, 3}, {1, 5}, "list")))
                flux.store{name = "shop", state = {items = {{priority = "normal"}}}}
                print(select(2, pcall(expect, flux.state("shop"), {items = {{priority = "low"}}})))
                print(select(2, pcall(expect, 2, 3)))
                """,
            "wrong.lua": """
                local state = {items = {{priority = "normal"}, {priority = "low"}}}
                expect(state, {items = {{priority = "normal"}, {priority = "high"}}}, "state")
                """,
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try FluxshProcess.run(["run", "diff.lua"], in: folder)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == """
            name: expected "c", got "a"
            list: 2 differences:
              [2]: expected 5, got 2
              [3]: expected nil, got 3
            items[1].priority: expected "low", got "normal"
            expected 3, got 2

            """)
        let test = try FluxshProcess.run(["test", "--jobs", "1", "wrong.lua"], in: folder)
        let lines = normalized(test.output).split(separator: "\n").map(String.init)
        #expect(lines.first == #"FAIL  wrong.lua  N ms  wrong.lua:2: state: items[2].priority: expected "high", got "low""#)
        #expect(lines.dropFirst().first == "      stack traceback:")
        #expect(lines.dropFirst(2).first == "        wrong.lua:2: in main chunk", "the traceback starts at the test's line")
        #expect(!test.output.contains("fluxsh:"), "no frame of the shell's own Lua: \(test.output)")
    }

    @Test("describe, it, before_each, after_each, pending: one line per test, a failed one with its diff; the script goes on")
    func specOutput() throws {
        let folder = try scriptFolder([
            "todo_spec.lua": """
                describe("a todo list", function()
                  local items
                  before_each(function() items = {{title = "milk", priority = "normal"}, {title = "bread", priority = "normal"}} end)

                  it("keeps its items", function()
                    expect(#items, 2)
                  end)

                  it("knows priorities", function()
                    expect(items, {{title = "milk", priority = "normal"}, {title = "bread", priority = "low"}})
                  end)

                  context("when emptied", function()
                    before_each(function() items = {} end)
                    it("has none", function() expect(#items, 0) end)
                  end)

                  pending("sorts by priority")
                end)
                print("the script went on")
                """,
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try FluxshProcess.run(["test", "--jobs", "1", "todo_spec.lua"], in: folder)
        #expect(result.status == 1)
        #expect(normalized(result.output) == """
            the script went on
            FAIL  todo_spec.lua  N ms  1 of 4 tests failed
                  a todo list
                    ✓ keeps its items
                    ✗ knows priorities
                      todo_spec.lua:10: [2].priority: expected "low", got "normal"
                    when emptied
                      ✓ has none
                    ○ sorts by priority (pending)
            4 tests: 2 passed, 1 failed, 1 pending
            0 passed, 1 failed

            """)
        // -v adds each test's time and a failed test's traceback, which starts at its line.
        let verbose = try FluxshProcess.run(["test", "-v", "--jobs", "1", "todo_spec.lua"], in: folder)
        let lines = normalized(verbose.output).split(separator: "\n").map(String.init)
        #expect(lines.contains("        ✓ keeps its items (N ms)"))
        let failed = try #require(lines.firstIndex(of: "        ✗ knows priorities (N ms)"))
        #expect(lines[failed + 2] == "          stack traceback:")
        #expect(lines[failed + 3].hasPrefix("            todo_spec.lua:10: in "), "\(lines[failed + 3])")
        #expect(!verbose.output.contains("fluxsh:"))
        // fluxsh run writes the same lines as the tests end, and fails when one did.
        let run = try FluxshProcess.run(["run", "todo_spec.lua"], in: folder)
        #expect(run.status == 1)
        #expect(run.output.hasPrefix("a todo list\n  ✓ keeps its items ("))
        #expect(run.output.hasSuffix("the script went on\n4 tests: 2 passed, 1 failed, 1 pending\n"))
    }

    @Test("each it starts from the stores as before_each left them: every store reset, the undo history empty")
    func storesReset() throws {
        let folder = try scriptFolder([
            "reset.lua": """
                flux.store{name = "tally", state = {n = 0}, on = {["tally.add"] = function(s) s.n = s.n + 1 end}}
                flux.dispatch("tally.add")
                local log = {}
                describe("outer", function()
                  before_each(function() log[#log + 1] = "before outer" end)
                  after_each(function() log[#log + 1] = "after outer" end)
                  describe("inner", function()
                    before_each(function()
                      log[#log + 1] = "before inner"
                      flux.dispatch("ticTacToe.placeToken", {index = 4})
                    end)
                    after_each(function() log[#log + 1] = "after inner" end)
                    it("sees its own move", function()
                      log[#log + 1] = "test 1"
                      flux.dispatch("tally.add")
                      flux.dispatch("ticTacToe.placeToken", {index = 0})
                      expect(flux.state("tally").n, 2)
                    end)
                    it("sees no move of the test before", function()
                      log[#log + 1] = "test 2"
                      expect(flux.state("tally").n, 1, "as the script's top level left it")
                      expect(flux.state("ticTacToe").playerToMove, "O")
                      expect(flux.undo(), true, "before_each's move")
                      expect(flux.undo(), false, "nothing of the test before to undo")
                    end)
                  end)
                end)
                expect(log, {"before outer", "before inner", "test 1", "after inner", "after outer",
                             "before outer", "before inner", "test 2", "after inner", "after outer"})
                expect(flux.state("ticTacToe").playerToMove, "X", "the stores as the describe found them")
                expect(flux.state("tally").n, 1)
                expect(flux.undo(), true, "the undo history as the describe found it")
                expect(flux.state("tally").n, 0)
                """,
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try FluxshProcess.run(["test", "--jobs", "1", "reset.lua"], in: folder)
        #expect(result.status == 0, "\(result.output)")
        #expect(normalized(result.output).hasPrefix("ok    reset.lua  N ms  2 tests\n"))
        #expect(result.output.hasSuffix("2 tests: 2 passed, 0 failed\n1 passed, 0 failed\n"))
    }

    @Test("flux.test_store: every change stated, or the diff; follow-ups received with t:receive, or the test fails")
    func testStore() throws {
        let folder = try scriptFolder([
            "store_spec.lua": """
                flux.store{name = "todo", state = {items = {}, counted = 0}, on = {
                  ["todo.add"] = function(s, a) table.insert(s.items, a.title) end,
                  ["todo.count"] = function(s) s.counted = #s.items end,
                }}
                flux.subscribe("todo", function(state, previous)
                  if previous and #state.items ~= state.counted then flux.dispatch("todo.count") end
                end)

                describe("a test store", function()
                  it("passes when every change is stated", function()
                    local t = flux.test_store("todo")
                    t:dispatch("todo.add", {title = "milk"}, function(s) s.items[1] = "milk" end)
                    t:receive("todo.count", function(s) s.counted = 1 end)
                  end)

                  it("fails on a change the test did not state", function()
                    local t = flux.test_store("annotationFilter")
                    t:dispatch("annotationFilter.toggleFilter", {filter = "issues.status"}, function(s)
                      s.issueFilters[2].enabled = true
                      s.isFiltering = true
                    end)
                  end)

                  it("fails on a change stated that did not happen", function()
                    local t = flux.test_store("todo")
                    t:dispatch("todo.add", {title = "milk"}, function(s)
                      s.items[1] = "milk"
                      s.counted = 1
                    end)
                  end)

                  it("fails when a follow-up is not received", function()
                    local t = flux.test_store("todo")
                    t:dispatch("todo.add", {title = "bread"}, function(s) s.items[1] = "bread" end)
                  end)

                  it("fails when another action is received", function()
                    local t = flux.test_store("todo")
                    t:dispatch("todo.add", {title = "tea"}, function(s) s.items[1] = "tea" end)
                    t:receive("todo.add")
                  end)
                end)
                """,
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try FluxshProcess.run(["test", "--jobs", "1", "store_spec.lua"], in: folder)
        #expect(result.status == 1)
        #expect(normalized(result.output) == """
            FAIL  store_spec.lua  N ms  4 of 5 tests failed
                  a test store
                    ✓ passes when every change is stated
                    ✗ fails on a change the test did not state
                      store_spec.lua:18: state of annotationFilter after annotationFilter.toggleFilter: generalFilters[1].enabled: expected false, got true
                    ✗ fails on a change stated that did not happen
                      store_spec.lua:26: state of todo after todo.add: counted: expected 1, got 0
                    ✗ fails when a follow-up is not received
                      store_spec.lua:32: 1 action reached todo and was not received (t:receive(name, fn) states each):
                        todo.count
                    ✗ fails when another action is received
                      store_spec.lua:40: expected to receive todo.add, received todo.count
            5 tests: 1 passed, 4 failed
            0 passed, 1 failed

            """)
    }

    @Test("flux.load loads a plugin (its own require working), from the test's folder; fluxsh-test.lua sets a folder up")
    func loadingPlugins() throws {
        let folder = try scriptFolder([
            "fluxsh-test.lua": "flux.load('plugins/counter.lua')",
            "counter_spec.lua": """
                describe("the counter the folder loads", function()
                  it("counts", function()
                    flux.dispatch("counter.increment")
                    expect(flux.state("counter").count, 1)
                  end)
                  it("starts again at 0 in each test", function()
                    expect(flux.state("counter").count, 0)
                  end)
                end)
                """,
            "greeter_spec.lua": """
                flux.load("plugins/greeter")
                it("greets with the word of its own module", function()
                  flux.dispatch("greeter.greet", {name = "Ana"})
                  expect(flux.state("greeter").last, "hello Ana")
                end)
                """,
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/plugins/greeter", withIntermediateDirectories: true)
        try """
            flux.store{name = "counter", state = {count = 0}, on = {["counter.increment"] = function(s) s.count = s.count + 1 end}}
            """.write(toFile: folder + "/plugins/counter.lua", atomically: true, encoding: .utf8)
        try """
            local words = require "words"
            flux.store{name = "greeter", state = {}, on = {["greeter.greet"] = function(s, a) s.last = words.hello .. " " .. a.name end}}
            """.write(toFile: folder + "/plugins/greeter/init.lua", atomically: true, encoding: .utf8)
        try "return {hello = 'hello'}".write(toFile: folder + "/plugins/greeter/words.lua", atomically: true, encoding: .utf8)
        let result = try FluxshProcess.run(["test", "--jobs", "1", "counter_spec.lua", "greeter_spec.lua"], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        #expect(result.output.contains("ok    counter_spec.lua "))
        #expect(result.output.contains("ok    greeter_spec.lua "))
        #expect(!result.output.contains("fluxsh-test.lua"), "the setup file is not a test")
        #expect(result.output.hasSuffix("3 tests: 3 passed, 0 failed\n2 passed, 0 failed\n"))
    }

    @Test("a folder of one letter: its tests run, after the setup file of each folder on the way, outermost first")
    func oneLetterFolder() throws {
        let folder = try scriptFolder(["fluxsh-test.lua": "trail = 'top'"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/t/u", withIntermediateDirectories: true)
        try "trail = trail .. ' t'".write(toFile: folder + "/t/fluxsh-test.lua", atomically: true, encoding: .utf8)
        try "trail = trail .. ' u'".write(toFile: folder + "/t/u/fluxsh-test.lua", atomically: true, encoding: .utf8)
        try "it('sees every setup', function() expect(trail, 'top t u') end)"
            .write(toFile: folder + "/t/u/a_spec.lua", atomically: true, encoding: .utf8)
        try "it('sees its own folders only', function() expect(trail, 'top t') end)"
            .write(toFile: folder + "/t/b_spec.lua", atomically: true, encoding: .utf8)

        for path in ["t", "./t"] {
            let result = try FluxshProcess.run(["test", "--jobs", "1", path], in: folder)
            #expect(result.status == 0, "\(path): \(result.output)\(result.errors)")
            #expect(result.output.hasSuffix("2 tests: 2 passed, 0 failed\n2 passed, 0 failed\n"), "\(path): \(result.output)")
        }
    }

    @Test("a script of one letter loads a file beside it and reports a missing one (the shell used to trap)")
    func oneLetterScriptLoads() throws {
        let folder = try scriptFolder(["beside.lua": "flux.store{name = 'beside', state = {n = 7}, on = {}}"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "flux.load('beside.lua') print('n=' .. flux.state('beside').n) flux.load('missing.lua')"
            .write(toFile: folder + "/u", atomically: true, encoding: .utf8)
        let result = try FluxshProcess.run(["run", "u"], in: folder)
        #expect(result.status == 1, "\(result.output)\(result.errors)")
        #expect(result.output.contains("n=7"), "\(result.output)")
        #expect(result.errors.contains("u:1: no plugin at missing.lua"), "\(result.errors)")
    }

    @Test("a link back to a folder on the way is walked once: each script runs once")
    func linkLoop() throws {
        let folder = try scriptFolder([:])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/t", withIntermediateDirectories: true)
        try "it('runs', function() end)".write(toFile: folder + "/t/a_spec.lua", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/t/again", withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: folder + "/t/up", withDestinationPath: "..")
        let result = try FluxshProcess.run(["test", "--jobs", "1", "t"], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        #expect(result.output.hasSuffix("1 test: 1 passed, 0 failed\n1 passed, 0 failed\n"), "\(result.output)")
    }

    @Test("--filter by test name as well as path, --list, -x, --tap and --junit")
    func selectionAndFormats() throws {
        let folder = try scriptFolder([
            "a_spec.lua": """
                describe("adding", function()
                  it("adds", function() expect(1 + 1, 2) end)
                  it("fails on purpose", function() expect(1 + 1, 3) end)
                  it("adds again", function() expect(2 + 2, 4) end)
                end)
                """,
            "b_spec.lua": "it('subtracts', function() expect(2 - 1, 1) end)",
            "plain.lua": "expect(1, 1)",
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let byName = try FluxshProcess.run(["test", "--jobs", "1", "--filter", "subtracts", "."], in: folder)
        #expect(byName.output.contains("      ✓ subtracts\n"))
        #expect(!byName.output.contains("a_spec.lua") && !byName.output.contains("plain.lua"))
        #expect(byName.status == 0)
        let byTestName = try FluxshProcess.run(["test", "--jobs", "1", "--filter", "adds", "a_spec.lua"], in: folder)
        #expect(byTestName.output.contains("✓ adds\n") && byTestName.output.contains("✓ adds again"))
        #expect(!byTestName.output.contains("fails on purpose"))
        #expect(byTestName.status == 0)
        let byPath = try FluxshProcess.run(["test", "--jobs", "1", "--filter", "a_spec", "."], in: folder)
        #expect(byPath.output.contains("fails on purpose"), "a script whose path matches runs whole")

        let list = try FluxshProcess.run(["test", "--list", "--jobs", "1", "a_spec.lua"], in: folder)
        #expect(list.output.contains("      adding\n        adds\n        fails on purpose\n        adds again\n"))
        #expect(list.status == 0)

        let stop = try FluxshProcess.run(["test", "-x", "--jobs", "1", "."], in: folder)
        #expect(stop.output.contains("✗ fails on purpose"))
        #expect(!stop.output.contains("adds again"), "no test after the failure")
        #expect(!stop.output.contains("b_spec.lua"), "no script after the failure")
        #expect(stop.output.hasSuffix("0 passed, 1 failed\n"))

        let tap = try FluxshProcess.run(["test", "--tap", "--jobs", "2", "."], in: folder)
        #expect(tap.output == """
            TAP version 13
            ok 1 - ./a_spec.lua: adding › adds
            not ok 2 - ./a_spec.lua: adding › fails on purpose
              ---
              message: |
                ./a_spec.lua:3: expected 3, got 2
              at: ./a_spec.lua:3
              ...
            ok 3 - ./a_spec.lua: adding › adds again
            ok 4 - ./b_spec.lua: subtracts
            ok 5 - ./plain.lua
            1..5
            # 2 passed, 1 failed

            """)

        let junit = folder + "/results.xml"
        let withJUnit = try FluxshProcess.run(["test", "--junit", junit, "."], in: folder)
        #expect(withJUnit.output.hasSuffix("2 passed, 1 failed\n"), "the closing line CI reads stays")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fluxsh test\" tests=\"5\" failures=\"1\" errors=\"0\" skipped=\"0\""))
        #expect(xml.contains("<testcase classname=\"./a_spec.lua › adding\" name=\"fails on purpose\" file=\"./a_spec.lua\" line=\"3\""))
        #expect(xml.contains("<failure message=\"./a_spec.lua:3: expected 3, got 2\">"))
        #expect(xml.hasSuffix("</testsuites>\n"))
    }

    @Test("--jobs runs scripts at once, each one's output kept together and written in the scripts' order")
    func parallelJobs() throws {
        var files: [String: String] = [:]
        for index in 1...4 {
            // A barrier: each script goes on only once all four have started, so they must run at once;
            // the first then waits longest, ending last, yet is written first.
            files["s\(index).lua"] = """
                print('s\(index) begins')
                io.open('started-\(index)', 'w'):close()
                local function all_started()
                  for j = 1, 4 do
                    local f = io.open('started-' .. j)
                    if not f then return false end
                    f:close()
                  end
                  return true
                end
                for _ = 1, 150 do
                  if all_started() then break end
                  os.execute('sleep 0.1')
                end
                assert(all_started(), 'the scripts did not run at once')
                os.execute('sleep \(Double(4 - index) * 0.3)')
                print('s\(index) ends')
                """
        }
        let folder = try scriptFolder(files)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try FluxshProcess.run(["test", "--jobs", "4", "."], in: folder)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 13)
        for index in 1...4 where lines.count == 13 {
            let base = (index - 1) * 3
            #expect(lines[base] == "s\(index) begins")
            #expect(lines[base + 1] == "s\(index) ends")
            #expect(lines[base + 2].hasPrefix("ok    ./s\(index).lua "))
        }
    }

    @Test("expect_snapshot compares with a golden file beside the test; --update-snapshots records it")
    func snapshots() throws {
        let folder = try scriptFolder([
            "board_spec.lua": """
                it("renders the board", function()
                  flux.dispatch("ticTacToe.placeToken", {index = 4})
                  expect_snapshot("board", flux.render("ticTacToe", 40))
                end)
                """,
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = try FluxshProcess.run(["test", "board_spec.lua"], in: folder)
        #expect(missing.status == 1)
        #expect(missing.output.contains("board_spec.lua:3: no snapshot board_spec.snapshots/board.txt: run `fluxsh test --update-snapshots` to record it"))
        let update = try FluxshProcess.run(["test", "--update-snapshots", "board_spec.lua"], in: folder)
        #expect(update.status == 0)
        let golden = try String(contentsOfFile: folder + "/board_spec.snapshots/board.txt", encoding: .utf8)
        #expect(golden.contains(". X ."))
        #expect(try FluxshProcess.run(["test", "board_spec.lua"], in: folder).status == 0)
        try golden.replacingOccurrences(of: ". X .", with: ". O .")
            .write(toFile: folder + "/board_spec.snapshots/board.txt", atomically: true, encoding: .utf8)
        let changed = try FluxshProcess.run(["test", "board_spec.lua"], in: folder)
        #expect(changed.status == 1)
        #expect(changed.output.contains("board_spec.lua:3: snapshot board differs from board_spec.snapshots/board.txt (- the file, + now):"))
        #expect(changed.output.contains("\n          -   . O .  3 4 5\n          +   . X .  3 4 5\n"), "\(changed.output)")
    }

    private func scriptFolder(_ files: [String: String]) throws -> String {
        let folder = temporaryPath("specs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        return folder
    }

    /// The output with times as `N ms`.
    private func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: #"\d+(\.\d+)? (ms|s)\b"#, with: "N ms", options: .regularExpression)
    }
}

/// What `fluxsh test` leaves behind when a script hangs or the runner is stopped: nothing. Driven with the
/// release binary, as users run it.
@Suite("fluxsh test: ending scripts and their children", .serialized)
struct SpecRunnerProcessSpec {
    @Test("--timeout 3 on a script running `sleep 60` ends after about 3 s, the sleep with it")
    func timeoutEndsTheGroup() throws {
        let folder = temporaryPath("hang")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "os.execute('sleep 60.125')".write(toFile: folder + "/hang.lua", atomically: true, encoding: .utf8)
        let start = Date()
        let (status, output) = try runRelease(["test", "--timeout", "3", "hang.lua"], in: folder)
        let elapsed = Date().timeIntervalSince(start)
        #expect(status == 1)
        #expect(output.contains("FAIL  hang.lua  ") && output.contains("timed out after 3 s"))
        #expect(elapsed > 2.5 && elapsed < 10, "ended after \(elapsed) s")
        #expect(processes(running: "sleep 60.125").isEmpty, "no orphan left")
    }

    @Test("SIGTERM or SIGINT to the runner ends the running script and its children, then the runner")
    func signalsEndTheGroup() throws {
        for (signal, marker) in [(SIGTERM, "sleep 60.25"), (SIGINT, "sleep 60.375")] {
            let folder = temporaryPath("signal")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try "os.execute('\(marker)')".write(toFile: folder + "/hang.lua", atomically: true, encoding: .utf8)
            let start = Date()
            let (status, _) = try runRelease(["test", "hang.lua"], in: folder, signal: signal, after: 1.5)
            #expect(status == 128 + signal || status == signal, "ended by the signal (\(status))")
            #expect(Date().timeIntervalSince(start) < 10)
            usleep(200_000)
            #expect(processes(running: marker).isEmpty, "no orphan left after signal \(signal)")
        }
    }

    /// Runs the release fluxsh; with `signal`, sends it that many seconds after the start. Returns the
    /// exit status (128 + the signal for one that ended it) and standard output.
    private func runRelease(_ arguments: [String], in folder: String, signal: Int32? = nil, after delay: TimeInterval = 0) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FluxshProcess.releasePath())
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = FluxshProcess.environment()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let signal {
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, signal)
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, String(decoding: data, as: UTF8.self))
    }

    /// The processes whose command line is `command`.
    private func processes(running command: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { Int($0) != nil }.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: " ").trimmingCharacters(in: .whitespaces) == command
        }
    }
}
