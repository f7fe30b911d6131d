import Flux

/// The coding keys the Lua encoder and decoder make up: a root name, a dictionary key, an array position.
///
/// Array positions are written "Index n", so `CodingPath.describe` shows them one-based, as Lua counts.
struct LuaCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key of the element at zero-based `index` of an array.
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    /// The key "super", used by `superEncoder()` and `superDecoder()`.
    static let `super` = LuaCodingKey(stringValue: "super")
}

/// A key in a Lua table being encoded: a name or a whole number, split as ``StateValue/Key`` splits
/// coding keys (a Swift dictionary's `Int` keys become integer keys; an enum coding key with an integer
/// raw value stays its name).
typealias LuaTableKey = StateValue.Key

extension StateValue.Key {
    /// [..] -> [.., key]
    func push(to stack: LuaStack) {
        switch self {
        case let .name(name): stack.push(name)
        case let .index(index): stack.push(index)
        }
    }
}
