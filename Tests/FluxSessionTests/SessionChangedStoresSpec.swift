import Flux
import Foundation
import Testing
@testable import FluxSession

struct Tally: Action, Equatable {
    static let name = "tally.mark"
}

final class TallyStore: Store<CounterState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "tally", state: CounterState(), dispatcher: dispatcher)
        on(Tally.self) { state, _ in state.count += 1 }
    }
}

@Suite("Sessions whose stores changed between runs")
struct SessionChangedStoresSpec {
    let folder = sessionFolder()

    /// A session whose undo history is, oldest first: counter, tally, counter, tally, tally.
    func saved() throws {
        let dispatcher = Dispatcher()
        _ = CounterStore(dispatcher: dispatcher)
        _ = TallyStore(dispatcher: dispatcher)
        let session = try Session.open(name: "work", directory: folder, dispatcher: dispatcher)
        session.restore()
        session.attach()
        for action in [Add(by: 1), Tally(), Add(by: 2), Tally(), Tally()] as [any Action] { try dispatcher.dispatch(action) }
        session.close()
    }

    /// The session opened again over `stores`, restored and attached.
    func reopen(_ stores: (Dispatcher) -> Void, messages: @escaping (String) -> Void) throws -> (Dispatcher, Session) {
        let dispatcher = Dispatcher()
        stores(dispatcher)
        let session = try Session.open(name: "work", directory: folder, dispatcher: dispatcher, report: messages)
        session.restore()
        session.attach()
        return (dispatcher, session)
    }

    @Test("a store gone, then a new step: the saved steps nearer than its last one are kept below the new one")
    func storeGone() throws {
        try saved()
        var messages: [String] = []
        var tally: TallyStore!
        let (dispatcher, session) = try reopen({ tally = TallyStore(dispatcher: $0) }) { messages.append($0) }
        #expect(tally.state.count == 3)
        try dispatcher.dispatch(Tally())
        session.save()
        #expect(dispatcher.history.undoLabels == ["tally.mark", "tally.mark", "tally.mark"])
        #expect(messages.contains { $0.contains("store 'counter'") && $0.contains("3 of its 5 steps were dropped") })
        for _ in 0 ..< 3 { try dispatcher.undo() }
        #expect(tally.state.count == 1)
    }

    @Test("a store whose state changed shape: the steps nearer than its last one come back, and undo")
    func storeReshaped() throws {
        try saved()
        var messages: [String] = []
        var tally: TallyStore!
        let (dispatcher, _) = try reopen({
            _ = ReshapedCounterStore(dispatcher: $0)
            tally = TallyStore(dispatcher: $0)
        }) { messages.append($0) }
        #expect(dispatcher.history.undoLabels == ["tally.mark", "tally.mark"])
        #expect(messages.contains { $0.contains("3 of its 5 steps were dropped") && $0.contains("2 kept") })
        for _ in 0 ..< 2 { try dispatcher.undo() }
        #expect(tally.state.count == 1)
    }
}
