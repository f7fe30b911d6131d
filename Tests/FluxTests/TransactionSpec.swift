import Testing
@testable import Flux

@Suite("Transactional dispatch")
struct TransactionSpec {
    let dispatcher = Dispatcher()

    @Test("a handler that throws → every store that changed returns to its state, and no subscriber hears anything")
    func rollbackAcrossStores() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        let ledger = LedgerStore(dispatcher: dispatcher)
        try dispatcher.dispatch(Increment(by: 2))
        var heard = 0
        let a = counter.subscribe { _ in heard += 1 }
        let b = ledger.subscribe { _ in heard += 1 }
        heard = 0
        #expect {
            try dispatcher.dispatch(Increment(by: -1))
        } throws: { error in
            "\(error)" == "store 'ledger' failed on 'counter.increment': negative increment"
        }
        #expect(counter.state.count == 2, "the counter had already changed and was restored")
        #expect(ledger.state.entries == [2])
        #expect(heard == 0)
        #expect(dispatcher.history.undoLabels == ["counter.increment"], "a failed action leaves no undo step")
        _ = (a, b)
    }

    @Test("a failed action is reported to middleware and changes nothing; the next one works")
    func recovers() throws {
        let counter = CounterStore(dispatcher: dispatcher)
        _ = LedgerStore(dispatcher: dispatcher)
        #expect(throws: DispatcherError.self) { try dispatcher.dispatch(Increment(by: -5)) }
        try dispatcher.dispatch(Increment(by: 5))
        #expect(counter.state.count == 5)
    }
}
