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
        holdsType = { Self.borrow($0, State.self) { _ in true } ?? false }
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
                guard let value = borrow(state, State.self, read) else { return false }
                lua.push(value)
                return true
            }
        case let .double(read):
            return { state, lua, _ in
                guard let value = borrow(state, State.self, read) else { return false }
                lua.push(value)
                return true
            }
        case let .bool(read):
            return { state, lua, _ in
                guard let value = borrow(state, State.self, read) else { return false }
                lua.push(value)
                return true
            }
        case let .string(read):
            return { state, lua, _ in
                guard let value = borrow(state, State.self, read) else { return false }
                lua.push(value)
                return true
            }
        case let .encodable(read):
            return { state, lua, table in
                guard let value = borrow(state, State.self, read) else { return false }
                try StateFieldEncoder.push(value, onto: lua, wrap: table.wrap)
                return true
            }
        }
    }

    /// What `read` reads from the state at `existential`, in place, when it is a `State`; nil when it is not.
    ///
    /// The existential is opened in place (inout: a borrow would copy the state), and nothing in the access
    /// calls into Lua: `read` only reads, and the caller pushes the value after.
    private static func borrow<State, Value>(_ existential: UnsafeMutablePointer<any Encodable>, _: State.Type,
                                             _ read: (UnsafePointer<State>) -> Value) -> Value? {
        func open<Opened: Encodable>(_ value: inout Opened) -> Value? {
            guard Opened.self == State.self else { return nil }
            return at(&value)
        }
        func at<Opened>(_ value: UnsafeMutablePointer<Opened>) -> Value {
            read(UnsafeRawPointer(value).assumingMemoryBound(to: State.self))
        }
        return open(&existential.pointee)
    }
}
