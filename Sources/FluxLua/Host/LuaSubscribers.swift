import CFluxLua
import CLua
import Flux

/// The Lua subscribers of one store, told of a change together: the store has one observer for all of
/// them, and `flux_notify` calls them in a C loop, one protected call each with the message handler
/// pushed once, every one getting the one view of the change.
///
/// The functions and the views each heard last live in one Lua table of pairs (see `flux_notify`), in the
/// order the subscriptions were made. A cancelled subscriber's pair is marked at once and removed later,
/// when no notification is running: one that cancels itself or others while notified stops hearing at
/// once, and one subscribed while a change is told first hears the next.
final class LuaSubscribers {
    let storeName: String
    /// [2i - 1] the function of `members[i - 1]` (false once cancelled), [2i] the view it heard last
    /// (false before its first call).
    let table: LuaRef
    private(set) var members: [LuaSubscription] = []
    private var cancelled = 0
    /// How many notifications are running: pairs are removed only when none is.
    private var notifying = 0
    /// The store's observer, which tells every member.
    var observer: StoreSubscription?
    /// Whether `observer` tells the members: not while it is made (the store calls it at once, but each
    /// member hears its first state on its own, as it subscribes).
    var isListening = false
    /// Run once the last member is cancelled, with this list: the host lets go of it.
    var onEmpty: ((LuaSubscribers) -> Void)?

    init(storeName: String, on lua: LuaStack) {
        self.storeName = storeName
        lua.pushTable()
        table = LuaRef(popping: lua)
    }

    /// Adds `subscription`, calling `function`; returns its pair number.
    func add(_ subscription: LuaSubscription, function: LuaRef, on lua: LuaStack) -> Int {
        members.append(subscription)
        let pair = members.count
        subscription.pair = pair
        lua.push(table)
        lua.push(function)
        lua.rawSet(2 * pair - 1, in: -2)
        lua.push(false)
        lua.rawSet(2 * pair, in: -2)
        lua.pop()
        subscription.subscription = StoreSubscription { [weak self, weak subscription] in
            if let subscription { self?.cancel(subscription) }
        }
        return pair
    }

    /// [..] -> [.., handler, table]: what ``tell(from:to:above:on:failed:)`` needs below the view, with
    /// room on the stack for a view and the calls.
    func prepare(on lua: LuaStack) throws {
        if flux_preparenotify(lua.state, table.id) == 0 { try lua.ensureSpace(FLUX_NOTIFY_SPACE) } // its error
    }

    /// [base: .., handler, table, .., view] -> [base: ..]. Calls the members `from` to `to` (pair numbers;
    /// nil: every member now, counted in C, so a change told to all reads no Swift list) with the view; each
    /// failure goes to `failed` with the member that failed, and the rest still run.
    func tell(from: Int, to: Int?, above base: Int32, on lua: LuaStack, failed: (LuaError, LuaSubscription) -> Void) {
        defer { lua.top = base }
        notifying += 1
        defer {
            notifying -= 1
            if notifying == 0, cancelled > 0 { tidy() }
        }
        var next = from
        var last = Int32(to ?? -1)
        while last < 0 || next <= last {
            var status: Int32 = LUA_OK
            var stop: Int32 = 0
            let pair = Int(flux_notify(lua.state, base + 1, Int32(next), &last, &status, &stop))
            guard pair > 0 else { return }
            failed(LuaError(status: status, stop: stop, popping: lua), member(pair))
            next = pair + 1
        }
    }

    /// The member of pair `pair`, for a failure: out of line, so that telling a change reads `members`
    /// only when a subscriber fails.
    @inline(never)
    private func member(_ pair: Int) -> LuaSubscription {
        members[pair - 1]
    }

    /// The main thread's stack, or nil once the VM is closed.
    private var stack: LuaStack? { table.control.state.map(LuaStack.init) }

    private func cancel(_ subscription: LuaSubscription) {
        let index = subscription.pair - 1
        guard members.indices.contains(index), members[index] === subscription else { return }
        if let lua = stack {
            lua.push(table)
            lua.push(false)
            lua.rawSet(2 * index + 1, in: -2)
            lua.push(false)
            lua.rawSet(2 * index + 2, in: -2)
            lua.pop()
        }
        subscription.pair = 0
        cancelled += 1
        if notifying == 0 { tidy() }
    }

    /// Removes the cancelled members once they are half; stops observing the store once none is left.
    private func tidy() {
        guard cancelled > 0, cancelled * 2 > members.count else { return }
        let kept = members.filter { $0.pair != 0 }
        if let lua = stack {
            lua.push(table)                                      // [.., table]
            for (index, member) in kept.enumerated() {
                lua.rawGet(2 * member.pair - 1, from: -1)
                lua.rawGet(2 * member.pair, from: -2)            // [.., table, f, previous]
                lua.rawSet(2 * index + 2, in: -3)
                lua.rawSet(2 * index + 1, in: -2)
                member.pair = index + 1
            }
            for key in 2 * kept.count + 1 ... 2 * members.count {
                lua.pushNil()
                lua.rawSet(key, in: -2)
            }
            lua.pop()
        }
        members = kept
        cancelled = 0
        guard members.isEmpty else { return }
        observer?.cancel()
        observer = nil
        let empty = onEmpty
        onEmpty = nil
        empty?(self) // whoever runs on this list (a tell) holds it: it may go once they return
    }

    deinit { observer?.cancel() }
}
