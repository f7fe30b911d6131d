import Testing
@testable import Flux

/// The stream of settled commits: what `flux.on` listeners, and anything else that must only hear what can
/// no longer roll back, read.
@Suite("Settled commits")
struct SettledCommitsSpec {
    final class Heard {
        var commits: [SettledCommit] = []
        var names: [String] { commits.map { "\($0.action.name)\($0.group.map { "@\($0.label)" } ?? "") \($0.origin.rawValue) \($0.changed.joined(separator: ","))" } }
    }

    func setUp() -> (Dispatcher, CounterStore, Heard) {
        let dispatcher = Dispatcher()
        let counter = CounterStore(dispatcher: dispatcher)
        _ = LedgerStore(dispatcher: dispatcher)
        let heard = Heard()
        SettledCommits.of(dispatcher).subscribe { heard.commits.append($0) }
        return (dispatcher, counter, heard)
    }

    @Test("an action is told once it committed, with the stores it changed; a refused or failed one never")
    func committedOnly() throws {
        let (dispatcher, _, heard) = setUp()
        try dispatcher.dispatch(Increment(by: 2))
        #expect(throws: (any Error).self) { try dispatcher.dispatch(Increment(by: -1)) }
        #expect(throws: (any Error).self) { try dispatcher.dispatch(Fail(reason: "no")) }
        #expect(heard.names == ["counter.increment direct counter,ledger"])
    }

    @Test("a group's actions are told when it commits, each once and in order; a rolled-back group's never")
    func groups() throws {
        let (dispatcher, counter, heard) = setUp()
        try dispatcher.group("two") {
            try dispatcher.dispatch(Increment(by: 1))
            #expect(heard.commits.isEmpty) // not settled while the group is open
            try dispatcher.dispatch(Increment(by: 2))
        }
        #expect(heard.names == ["counter.increment@two direct counter,ledger", "counter.increment@two direct counter,ledger"])
        #expect(throws: (any Error).self) {
            try dispatcher.group("undone") {
                try dispatcher.dispatch(Increment(by: 5))
                try dispatcher.dispatch(Increment(by: -1))
            }
        }
        #expect(heard.commits.count == 2)
        #expect(counter.state.count == 3)
    }

    @Test("where an action came from: an effect's, a follow-up, a replay; all-or-nothing work rolled back is never told")
    func origins() throws {
        let (dispatcher, counter, heard) = setUp()
        dispatcher.isEffect = true
        try dispatcher.dispatch(Increment(by: 1))
        dispatcher.isEffect = false
        let subscription = counter.subscribe { state in
            if state.count == 2 { try? dispatcher.dispatch(Increment(by: 10)) }
        }
        try dispatcher.dispatch(Increment(by: 1))
        subscription.cancel()
        let log = [#"{"name":"counter.increment","payload":{"by":1},"effect":true,"time":0}"#].joined(separator: "\n")
        try ActionReplayer(dispatcher: dispatcher).replay(contentsOf: log)
        #expect(throws: (any Error).self) {
            try dispatcher.allOrNothing { try dispatcher.dispatch(Increment(by: 1)); throw TestFailure(description: "rewind") }
        }
        #expect(heard.commits.map(\.origin) == [.effect, .direct, .followUp, .replay])
    }
}
