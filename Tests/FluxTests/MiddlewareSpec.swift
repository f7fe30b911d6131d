import Testing
@testable import Flux

@Suite("Middleware")
struct MiddlewareSpec {
    final class Gate: Middleware {
        var seen: [String] = []
        func willDispatch(_ action: any Action, in dispatcher: Dispatcher) throws {
            seen.append("will \(action.name)")
            if let increment = action as? Increment, increment.by > 100 {
                throw TestFailure(description: "too large")
            }
        }
        func didDispatch(_ action: any Action, changed: [String], in dispatcher: Dispatcher) {
            seen.append("did \(action.name) \(changed)")
        }
        func didFail(_ action: any Action, error: any Error, in dispatcher: Dispatcher) {
            seen.append("failed \(action.name)")
        }
    }

    @Test("middleware observes before and after, and can reject an action before any store sees it")
    func observeAndReject() throws {
        let dispatcher = Dispatcher()
        let counter = CounterStore(dispatcher: dispatcher)
        let gate = Gate()
        dispatcher.middleware.append(gate)
        try dispatcher.dispatch(Increment(by: 1))
        #expect {
            try dispatcher.dispatch(Increment(by: 500))
        } throws: { error in
            "\(error)" == "'counter.increment' rejected: too large"
        }
        #expect(counter.state.count == 1)
        #expect(gate.seen == ["will counter.increment", "did counter.increment [\"counter\"]",
                              "will counter.increment", "failed counter.increment"])
    }

    @Test("the logging middleware writes each action with its payload and the stores it changed")
    func logging() throws {
        let dispatcher = Dispatcher()
        _ = CounterStore(dispatcher: dispatcher)
        var lines: [String] = []
        dispatcher.middleware.append(LoggingMiddleware { lines.append($0) })
        try dispatcher.dispatch(Increment(by: 2))
        try? dispatcher.dispatch(Fail(reason: "no"))
        try dispatcher.undo()
        #expect(lines == [
            #"→ counter.increment {"by":2} changed counter"#,
            #"✗ counter.fail {"reason":"no"} store 'counter' failed on 'counter.fail': no"#,
            "↺ undo counter.increment",
        ])
    }
}
