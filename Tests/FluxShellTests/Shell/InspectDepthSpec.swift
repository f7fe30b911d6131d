@testable import FluxShell
import FluxLua
import Testing

/// `flux.inspect` and the prompt's echo of a deeply nested table take time in proportion to its size: a
/// table nested 2,000 deep took 29 s (each level re-measured and re-copied everything below it). Measured
/// in Lua instructions, under a budget the old printer ran far past.
@Suite struct InspectDepthSpec {
    static let nested = """
        t = {}
        local c = t
        for i = 1, 2000 do c[1] = {} c = c[1] end
        c[1] = "deepest"
        """

    @Test("a table nested 2,000 deep is inspected within a budget linear in its depth, indentation bounded")
    func deepInspect() throws {
        let shell = ShellTranscript()
        shell.shell.host.vm.instructionBudget = 40_000_000
        let result = shell.type(Self.nested + """
            local text = flux.inspect(t)
            local widest = 0
            for line in text:gmatch("[^\\n]+") do widest = math.max(widest, #line) end
            return #text < 400000, widest <= 80, text:find('"deepest"', 1, true) ~= nil, text:sub(1, 8)
            """)
        #expect(result.ok, "\(result.errors)")
        #expect(result.output == "true\ttrue\ttrue\t{\n  {\n  \n", "\(result.output)")
    }

    @Test("the prompt echoes it within the same budget")
    func deepEcho() throws {
        let shell = ShellTranscript()
        shell.shell.host.vm.instructionBudget = 40_000_000
        #expect(shell.type(Self.nested).ok)
        let echoed = shell.type("t")
        #expect(echoed.ok, "\(echoed.errors)")
        #expect(echoed.output.contains("\"deepest\""))
    }

    @Test("short tables still print on one line, long ones a field a line")
    func layout() throws {
        let shell = ShellTranscript()
        #expect(shell.print("return {1, 2, {a = 1, b = {}}, x = 'y'}") == "{1, 2, {a = 1, b = {}}, x = \"y\"}\n")
        let long = shell.print("return {alpha = string.rep('a', 40), beta = string.rep('b', 40)}")
        #expect(long == "{\n  alpha = \"\(String(repeating: "a", count: 40))\",\n  beta = \"\(String(repeating: "b", count: 40))\",\n}\n")
    }
}
