import Foundation

/// How `fluxsh test` picks, runs and reports scripts and their tests.
public struct TestOptions: Sendable {
    /// Only scripts whose path holds it run whole; other scripts run only the tests whose full name holds it.
    public var filter: String?
    /// Each test's time, and a failed test's traceback.
    public var verbose = false
    /// Stop at the first failure: no later test of the script, no script not started yet (`-x`).
    public var stopAtFirstFailure = false
    /// Name the tests instead of running them (`--list`); a script's top level still runs, to declare them.
    public var listing = false
    /// Also write the results as JUnit XML to this file.
    public var junit: String?
    /// Write the Test Anything Protocol instead of the text.
    public var tap = false
    /// How many scripts run at once.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// `expect_snapshot` records its text as the golden file instead of comparing.
    public var updatingSnapshots = false
    /// The seconds a script may run before it fails (and its processes are ended).
    public var timeout: TimeInterval = 60

    public init() {}

    /// The part a script's spec runtime reads.
    var spec: SpecRuntime.Options {
        SpecRuntime.Options(filter: filter, stopAtFirstFailure: stopAtFirstFailure, listing: listing,
                            updatingSnapshots: updatingSnapshots)
    }
}
