import Foundation

/// What running one test script found: its tests and, when it failed outside them, why. A child process
/// writes it as JSON for the runner (after each test, so a script that times out still shows the tests
/// it finished).
public struct ScriptReport: Codable, Sendable {
    /// The script's path as given.
    public var script: String
    /// Why the script failed outside its tests — an error at its top level or in a subscriber, a crash, a
    /// timeout — or nil.
    public var failure: String?
    /// Its tests (`it`, `pending`), in the order they ran.
    public var tests: [SpecResult] = []
    /// Whether the script got to its end.
    public var finished = false
    public var milliseconds: Double = 0
    /// What the script printed (standard output, standard error), when run in a process of its own.
    var output = ""
    var errors = ""

    enum CodingKeys: String, CodingKey { case script, failure, tests, finished }

    init(script: String, tests: [SpecResult] = []) {
        self.script = script
        self.tests = tests
    }

    public var failedTests: Int { tests.filter { $0.status == .failed }.count }
    /// Whether the script passed: no failure, no failed test.
    public var passed: Bool { failure == nil && failedTests == 0 }
}

/// How `fluxsh test` writes its reports.
struct ScriptReportText {
    var verbose = false
    var width = 0

    /// The script's block: its verdict line, then a line per test (nested under its describes), a failed
    /// test's message (and, verbose, its traceback and each test's time).
    func text(_ report: ScriptReport) -> String {
        let path = report.script.padding(toLength: max(width, report.script.count), withPad: " ", startingAt: 0)
        let time = Self.time(report.milliseconds)
        var text: String
        if report.passed {
            text = "ok    \(path)  \(time)\(summary(report).map { "  " + $0 } ?? "")\n"
        } else if let failure = report.failure {
            text = "FAIL  \(path)  \(time)  \(failure)\n"
        } else {
            text = "FAIL  \(path)  \(time)  \(report.failedTests) of \(report.tests.count) tests failed\n"
        }
        var headings: [String] = []
        for test in report.tests { text += lines(test, headings: &headings) }
        return text
    }

    /// A test's line, under the headings of its describes not written yet (`headings`: the last ones
    /// written); a failed test's message under it.
    func lines(_ test: SpecResult, headings: inout [String], indent base: Int = 6) -> String {
        var text = ""
        let groups = Array(test.names.dropLast())
        let shared = zip(headings, groups).prefix { $0 == $1 }.count
        for (depth, name) in groups.enumerated().dropFirst(shared) {
            text += String(repeating: " ", count: base + 2 * depth) + name + "\n"
        }
        headings = groups
        let indent = String(repeating: " ", count: base + 2 * groups.count)
        let name = test.names.last ?? ""
        let time = verbose ? test.milliseconds.map { " (\(Self.time($0)))" } ?? "" : ""
        switch test.status {
        case .passed: text += "\(indent)✓ \(name)\(time)\n"
        case .pending: text += "\(indent)○ \(name) (pending)\n"
        case .listed: text += "\(indent)\(name)\n"
        case .failed:
            text += "\(indent)✗ \(name)\(time)\n"
            var lines = (test.message ?? "failed").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if verbose, let traceback = test.traceback, !traceback.isEmpty {
                lines += traceback.split(separator: "\n").map { $0.replacingOccurrences(of: "\t", with: "  ") }
            }
            text += lines.map { indent + "  " + $0 + "\n" }.joined()
        }
        return text
    }

    /// `5 tests`, `5 tests, 1 pending`; nil for a script with none.
    func summary(_ report: ScriptReport) -> String? {
        guard !report.tests.isEmpty else { return nil }
        let pending = report.tests.filter { $0.status == .pending }.count
        let count = report.tests.count
        return "\(count) test\(count == 1 ? "" : "s")" + (pending > 0 ? ", \(pending) pending" : "")
    }

    /// Always in milliseconds, so that a column of times lines up and reads alike.
    static func time(_ milliseconds: Double) -> String {
        "\(Int(milliseconds.rounded())) ms"
    }

    /// The line over the closing count when scripts had tests: `12 tests: 11 passed, 1 failed, 1 pending`.
    static func testTotals(_ reports: [ScriptReport]) -> String? {
        let tests = reports.flatMap(\.tests)
        guard !tests.isEmpty else { return nil }
        func count(_ status: SpecResult.Status) -> Int { tests.filter { $0.status == status }.count }
        let total = "\(tests.count) test\(tests.count == 1 ? "" : "s")"
        if count(.listed) == tests.count { return total + "\n" }
        var line = "\(total): \(count(.passed)) passed, \(count(.failed)) failed"
        if count(.pending) > 0 { line += ", \(count(.pending)) pending" }
        return line + "\n"
    }
}

/// The Test Anything Protocol (version 13): one test point per test, and one per script that has none
/// or failed outside its tests; what scripts print as comments.
struct ScriptReportTAP {
    private(set) var count = 0

    mutating func text(_ report: ScriptReport) -> String {
        var text = ""
        for line in (report.output + report.errors).split(separator: "\n") { text += "# \(line)\n" }
        if report.tests.isEmpty || report.failure != nil {
            count += 1
            if let failure = report.failure {
                text += "not ok \(count) - \(report.script)\n" + Self.diagnostics(failure, at: nil)
            } else {
                text += "ok \(count) - \(report.script)\n"
            }
        }
        for test in report.tests {
            count += 1
            let name = "\(report.script): " + test.names.joined(separator: " › ")
            switch test.status {
            case .passed, .listed: text += "ok \(count) - \(name)\n"
            case .pending: text += "ok \(count) - \(name) # SKIP pending\n"
            case .failed:
                text += "not ok \(count) - \(name)\n" + Self.diagnostics(test.message ?? "failed", at: "\(test.file):\(test.line)")
            }
        }
        return text
    }

    static func diagnostics(_ message: String, at place: String?) -> String {
        var text = "  ---\n  message: |\n"
        text += message.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 + "\n" }.joined()
        if let place { text += "  at: \(place)\n" }
        return text + "  ...\n"
    }
}

/// JUnit XML, as CI servers read it: a `testsuite` per script, a `testcase` per test (a script without
/// tests is one).
enum ScriptReportJUnit {
    static func xml(_ reports: [ScriptReport]) -> String {
        var suites = ""
        var total = (tests: 0, failures: 0, skipped: 0, time: 0.0)
        for report in reports {
            var cases = ""
            var counts = (tests: 0, failures: 0, skipped: 0)
            if report.tests.isEmpty || report.failure != nil {
                counts.tests += 1
                cases += "    <testcase classname=\"\(escape(report.script))\" name=\"\(escape(report.script))\" time=\"\(seconds(report.tests.isEmpty ? report.milliseconds : 0))\">\n"
                if let failure = report.failure {
                    counts.failures += 1
                    cases += "      <failure message=\"\(escape(firstLine(failure)))\">\(escape(failure))</failure>\n"
                }
                cases += "    </testcase>\n"
            }
            for test in report.tests {
                counts.tests += 1
                let classname = ([report.script] + test.names.dropLast()).joined(separator: " › ")
                cases += "    <testcase classname=\"\(escape(classname))\" name=\"\(escape(test.names.last ?? ""))\" file=\"\(escape(test.file))\" line=\"\(test.line)\" time=\"\(seconds(test.milliseconds ?? 0))\">\n"
                switch test.status {
                case .failed:
                    counts.failures += 1
                    let message = test.message ?? "failed"
                    let body = message + (test.traceback.map { "\n" + $0 } ?? "")
                    cases += "      <failure message=\"\(escape(firstLine(message)))\">\(escape(body))</failure>\n"
                case .pending:
                    counts.skipped += 1
                    cases += "      <skipped message=\"pending\"/>\n"
                case .passed, .listed: break
                }
                cases += "    </testcase>\n"
            }
            var suite = "  <testsuite name=\"\(escape(report.script))\" tests=\"\(counts.tests)\" failures=\"\(counts.failures)\" errors=\"0\" skipped=\"\(counts.skipped)\" time=\"\(seconds(report.milliseconds))\">\n" + cases
            if !report.output.isEmpty { suite += "    <system-out>\(escape(report.output))</system-out>\n" }
            if !report.errors.isEmpty { suite += "    <system-err>\(escape(report.errors))</system-err>\n" }
            suites += suite + "  </testsuite>\n"
            total.tests += counts.tests
            total.failures += counts.failures
            total.skipped += counts.skipped
            total.time += report.milliseconds
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"fluxsh test\" tests=\"\(total.tests)\" failures=\"\(total.failures)\" errors=\"0\" skipped=\"\(total.skipped)\" time=\"\(seconds(total.time))\">\n"
            + suites + "</testsuites>\n"
    }

    private static func firstLine(_ text: String) -> String {
        String(text.prefix { $0 != "\n" })
    }

    private static func seconds(_ milliseconds: Double) -> String {
        String(format: "%.3f", milliseconds / 1000)
    }

    /// Text as XML character data or an attribute's value; characters XML 1.0 cannot hold become U+FFFD.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n", "\t", "\r": result.unicodeScalars.append(scalar)
            default:
                result.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF ? "\u{FFFD}" : scalar)
            }
        }
        return result
    }
}
