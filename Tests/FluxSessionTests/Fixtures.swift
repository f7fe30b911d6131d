import Flux
import Foundation
@testable import FluxSession

struct Add: Action, Equatable {
    static let name = "counter.add"
    var by = 1
}

struct CounterState: Codable, Equatable {
    var count = 0
}

final class CounterStore: Store<CounterState> {
    init(dispatcher: Dispatcher, name: String = "counter") {
        super.init(name: name, state: CounterState(), dispatcher: dispatcher)
        on(Add.self) { state, action in state.count += action.by }
    }
}

/// A store of the same name whose state has another shape: what a changed feature looks like to a
/// saved session.
struct RenamedState: Codable, Equatable {
    var total = 0
}

final class ReshapedCounterStore: Store<RenamedState> {
    init(dispatcher: Dispatcher) {
        super.init(name: "counter", state: RenamedState(), dispatcher: dispatcher)
        on(Add.self) { state, action in state.total += action.by }
    }
}

/// A clock the specs move by hand.
final class TestClock {
    var now = 1_000.0
}

/// A folder of its own for each spec's sessions.
func sessionFolder() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("flux-sessions-\(UUID().uuidString)")
}

/// A counter store in a session named "work" in `folder`, on `clock`, restored and attached: what a
/// spec that reopens the same session again and again starts from.
func openCounterSession(in folder: URL, clock: TestClock) throws -> (Dispatcher, CounterStore, Session) {
    let dispatcher = Dispatcher()
    let store = CounterStore(dispatcher: dispatcher)
    let session = try Session.open(name: "work", directory: folder, dispatcher: dispatcher, clock: { [clock] in clock.now })
    session.restore()
    session.attach()
    return (dispatcher, store, session)
}
