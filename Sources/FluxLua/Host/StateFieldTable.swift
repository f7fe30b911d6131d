#if canImport(Glibc)
import Glibc
#endif
import CLua
import Flux

/// The fields of one ``FieldReadable`` state type as a view reads them: `state.count` looks "count" up
/// among the field names and pushes what that field's reader reads, without running `encode(to:)`.
///
/// Made once per type (``StateProxies`` keeps them). The names are Lua strings a table of this one keeps
/// alive, so a key is first looked for by address: Lua keeps one copy of each short string, and the
/// `"count"` of a script is then the very string held here. A key not found so (a long string, or not a
/// field) is compared byte by byte. A key that is no field's name reads nil, as `encode(to:)` writes
/// nothing under it.
final class StateFieldTable {
    /// Pushes the field of the state at the pointer, when the state is of the table's type (else false).
    typealias Reader = (UnsafeMutablePointer<any Encodable>, LuaStack, StateFieldTable) throws -> Bool
    /// A reader in a struct: an array holds it as it is called, where an array of functions would hold each
    /// in the most general form, and every call would go through a conversion.
    private struct Field {
        let read: Reader
    }

    /// Each field name's bytes, held by the Lua strings `names` keeps.
    private let keys: [UnsafeRawBufferPointer]
    private let readers: ContiguousArray<Field>
    /// Whether the state at the pointer is of the table's type.
    private let holdsType: (UnsafeMutablePointer<any Encodable>) -> Bool
    /// The names as Lua strings: keeps `keys` valid.
    private let names: LuaRef
    /// [.., table] -> [.., read-only view]: what a table a field holds is shown as.
    let wrap: (LuaStack) throws -> Void

    /// The table of `State`'s fields, its names made on `lua`.
    init<State: FieldReadable>(of _: State.Type, on lua: LuaStack, wrap: @escaping (LuaStack) throws -> Void) {
        let fields = State.fields
        self.wrap = wrap
        lua.pushTable(arrayCapacity: Int32(fields.count)) // [.., names]
        keys = fields.enumerated().map { index, field in
            lua.push(field.name)
            var length = 0
            let bytes = lua_tolstring(lua.state, -1, &length)
            lua.rawSet(Int(index + 1), in: -2) // by position: the table keeps the string alive
            return UnsafeRawBufferPointer(start: bytes, count: length)
        }
        names = LuaRef(popping: lua)
        readers = ContiguousArray(fields.map { Field(read: Self.reader($0)) })
        holdsType = { Self.withState($0) { (_: UnsafePointer<State>) in } }
    }

    /// [..] -> [.., value]. Pushes the field named by the bytes `key` (a Lua string's) of the state at
    /// `state`, or nil when no field has that name. Returns false, pushing nothing, when the state is not of
    /// this table's type.
    func read(_ key: UnsafeRawBufferPointer, of state: UnsafeMutablePointer<any Encodable>, onto lua: LuaStack) throws -> Bool {
        guard let field = field(named: key) else {
            guard holdsType(state) else { return false }
            lua.pushNil()
            return true
        }
        return try readers[field].read(state, lua, self)
    }

    /// The number of the field named `key`.
    private func field(named key: UnsafeRawBufferPointer) -> Int? {
        if let found = keys.firstIndex(where: { $0.baseAddress == key.baseAddress }) { return found }
        return keys.firstIndex { $0.count == key.count && (key.isEmpty || memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0) }
    }

    /// What reads `field` of a state of type `State`. Each value is pushed once the state's access has
    /// ended: a push may run finalizers, which may read the same state.
    private static func reader<State>(_ field: StateField<State>) -> Reader {
        switch field.reader {
        case let .int(read):
            return { state, lua, _ in
                var value = 0
                guard withState(state, { value = read($0) }) else { return false }
                lua.push(value)
                return true
            }
        case let .double(read):
            return { state, lua, _ in
                var value = 0.0
                guard withState(state, { value = read($0) }) else { return false }
                lua.push(value)
                return true
            }
        case let .bool(read):
            return { state, lua, _ in
                var value = false
                guard withState(state, { value = read($0) }) else { return false }
                lua.push(value)
                return true
            }
        case let .string(read):
            return { state, lua, _ in
                var value = ""
                guard withState(state, { value = read($0) }) else { return false }
                lua.push(value)
                return true
            }
        case let .encodable(read):
            return { state, lua, table in
                var value: (any Encodable)?
                guard withState(state, { value = read($0) }), let value else { return false }
                try StateFieldEncoder.push(value, onto: lua, wrap: table.wrap)
                return true
            }
        }
    }

    /// Calls `body` with the state at `existential` when it is a `State`; returns whether it was. Nothing in
    /// `body` may call into Lua.
    ///
    /// A state that fits the existential's own buffer is opened in place (inout), which copies nothing. A
    /// larger one is in a box the slot shares with the store's observer while it tells its subscribers:
    /// opened in place, the box would be copied first, so it is borrowed instead (which copies the
    /// existential: a retain of the box).
    private static func withState<State>(_ existential: UnsafeMutablePointer<any Encodable>,
                                         _ body: (UnsafePointer<State>) -> Void) -> Bool {
        func inPlace<Opened: Encodable>(_ value: inout Opened) -> Bool {
            guard Opened.self == State.self else { return false }
            at(&value)
            return true
        }
        func borrowed<Opened: Encodable>(_ value: borrowing Opened) -> Bool {
            guard Opened.self == State.self else { return false }
            withUnsafePointer(to: value) { at(UnsafeMutablePointer(mutating: $0)) }
            return true
        }
        func at<Opened>(_ value: UnsafeMutablePointer<Opened>) {
            body(UnsafeRawPointer(value).assumingMemoryBound(to: State.self))
        }
        let word = MemoryLayout<UnsafeRawPointer>.self
        let fitsBuffer = MemoryLayout<State>.size <= 3 * word.size && MemoryLayout<State>.alignment <= word.alignment
        return fitsBuffer ? inPlace(&existential.pointee) : borrowed(existential.pointee)
    }
}
