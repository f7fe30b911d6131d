/// A Swift store's state as Lua sees it: a read-only table that reads fields on demand.
///
/// Handing a state to a Lua subscriber or view provider creates only this proxy; `state.count`
/// encodes just that field ("never copy whole states into Lua on every change"). The proxy holds the
/// state value it was made with, so it never changes under a script that keeps it. `pairs`, `ipairs`
/// and `#` work; `pairs` and `#` encode the whole state once and keep it.
final class StateProxy {
    let state: any Encodable
    let storeName: String
    /// The whole state as a read-only table, once `pairs` or `#` needed it.
    var whole: LuaRef?

    init(state: any Encodable, storeName: String) {
        self.state = state
        self.storeName = storeName
    }
}
