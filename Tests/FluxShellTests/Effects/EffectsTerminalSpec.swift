import Foundation
import Testing

private let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

/// Effects at the prompt of the release `fluxsh` on a pseudo-terminal.
@Suite("effects on a terminal", .enabled(if: hasScript, "needs util-linux's script"))
struct EffectsTerminalSpec {
    @Test("a timer's output appears above the prompt while a line is typed, and the typed line is redrawn intact")
    func redrawAbovePrompt() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("flux.every(150, function() print('tick') end)\r")
        try terminal.waitFor("flux> ")
        terminal.type("1 + ")
        try terminal.waitFor("tick")
        try terminal.waitFor("flux> 1 + ")
        terminal.type("41\r")
        try terminal.waitFor("42\r\n")
        try terminal.waitFor("tick")
        terminal.type(":effects\r")
        try terminal.waitFor("every 150 ms")
        terminal.type("\u{4}")
        #expect(try terminal.exitStatus() == 0)
    }

    @Test("a process's lines arrive while the prompt waits; Ctrl-C still clears the line; quitting ends the process")
    func processAtPrompt() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("p = flux.spawn({'/bin/sh', '-c', 'sleep 0.3; echo from-child; sleep 60'}, {on_line = function(l) print('got ' .. l) end})\r")
        try terminal.waitFor("flux> ")
        terminal.type("pid = p:pid()\r")
        try terminal.waitFor("flux> ")
        try terminal.waitFor("got from-child")
        terminal.type("dropped")
        terminal.type("\u{3}")
        try terminal.waitFor("^C")
        try terminal.waitFor("flux> ") // the fresh prompt Ctrl-C gives: what follows is the next line's
        terminal.type("print('pid', pid)\r")
        let line = try terminal.text(until: "flux> ")
        let pid = Int32(Self.number(after: "pid\t", in: line) ?? "") ?? 0
        #expect(pid > 0)
        terminal.type(":quit\r")
        #expect(try terminal.exitStatus() == 0)
        usleep(200_000)
        #expect(!isRunning(pid))
    }

    @Test("an idle shell with no effects uses no CPU while the prompt waits")
    func idle() throws {
        let terminal = try Terminal()
        defer { terminal.stop() }
        try terminal.waitFor("flux> ")
        terminal.type("f = io.open('/proc/self/stat'); s = f:read('a'); f:close()\r")
        try terminal.waitFor("flux> ")
        terminal.type("function cpu() local f = io.open('/proc/self/stat'); local s = f:read('a'); f:close(); local fields = {}; for w in s:gsub('^.*%) ', ''):gmatch('%S+') do fields[#fields+1] = w end; return tonumber(fields[12]) + tonumber(fields[13]) end\r")
        try terminal.waitFor("flux> ")
        terminal.type("before = cpu()\r")
        try terminal.waitFor("flux> ")
        Thread.sleep(forTimeInterval: 1.0)
        terminal.type("print('ticks', cpu() - before)\r")
        let text = try terminal.text(until: "flux> ")
        let ticks = Int(Self.number(after: "ticks\t", in: text) ?? "") ?? 99
        #expect(ticks <= 2) // clock ticks (1/100 s): what the two lines cost, not the second of waiting
        terminal.type("\u{4}")
        _ = try terminal.exitStatus()
    }

    /// The digits printed right after `label` (what follows them, such as the escape readline writes
    /// before the next prompt, left out).
    static func number(after label: String, in text: String) -> String? {
        guard let start = text.range(of: label)?.upperBound else { return nil }
        let digits = text[start...].prefix { $0.isNumber }
        return digits.isEmpty ? nil : String(digits)
    }
}
