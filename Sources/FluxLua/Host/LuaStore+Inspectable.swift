import Flux

extension LuaStore: InspectableStore {
    func encodable(snapshot: Any) -> (any Encodable)? {
        (snapshot as? LuaRef).map { LuaTableState(store: self, table: $0) }
    }

    var waitsFor: [String] { waitFor }
    var ownerName: String {
        switch owner {
        case let .plugin(name, _): "plugin \(name)"
        case .session: "Lua"
        case .swift: "Swift"
        }
    }
}
