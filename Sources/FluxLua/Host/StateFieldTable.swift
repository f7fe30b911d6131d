#if canImport(Glibc)
import Glibc
#endif
import CFluxLua
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
///
/// Stored `Int`, `Double` and `Bool` fields at a known offset (``StateField/offset``) are also listed for C
/// (``direct``): a view finds where its state is (``storage(in:)``) and loads them without calling Swift.
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
    /// The fields C loads from the state itself (`flux_pushdirect`), `directCount` of them; kept as long as
    /// this table (so as long as the host's views).
    let direct: UnsafeMutablePointer<FluxDirectField>
    let directCount: Int
    /// Where a state of this type is inside an existential holding it, learned from the first one
    /// (``learnPlacement(from:)``): the same for every value of a type. Nil until then, or when it is not
    /// where C expects it (then every read goes through Swift).
    private(set) var placement: Placement?

    /// Where a value is inside an existential: in its own buffer, or `offset` bytes into the box whose
    /// address the buffer's first word holds (a box the existential never changes while it holds it).
    enum Placement {
        case buffer
        case box(offset: Int)
    }

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
        let loaded = zip(fields, keys).compactMap { field, key -> FluxDirectField? in
            guard let offset = field.offset, let kind = Self.directKind(field.reader) else { return nil }
            return FluxDirectField(key: key.baseAddress?.assumingMemoryBound(to: CChar.self), offset: offset, kind: kind)
        }
        direct = .allocate(capacity: max(loaded.count, 1))
        direct.initialize(from: loaded, count: loaded.count)
        directCount = loaded.count
        learn = { Self.placement(in: $0, of: State.self) }
    }

    /// Finds out ``placement`` from `existential`, one of the states of this table's type.
    private let learn: (UnsafeMutablePointer<any Encodable>) -> Placement?
    func learnPlacement(from existential: UnsafeMutablePointer<any Encodable>) {
        if directCount > 0 { placement = learn(existential) }
    }

    /// Where the state `existential` holds is stored, when C may load its direct fields from there.
    @inline(__always)
    func storage(in existential: UnsafeMutablePointer<any Encodable>) -> UnsafeRawPointer? {
        switch placement {
        case .buffer: UnsafeRawPointer(existential)
        case let .box(offset): UnsafeRawPointer(existential).load(as: UnsafeRawPointer.self) + offset
        case nil: nil
        }
    }

    deinit { direct.deallocate() }

    /// The kind C knows a field of `reader`'s type by (`FLUX_FIELD_…`), or nil for a type it does not load.
    private static func directKind<State>(_ reader: StateField<State>.Reader) -> Int32? {
        switch reader {
        case .int: FLUX_FIELD_INT
        case .double: FLUX_FIELD_DOUBLE
        case .bool: FLUX_FIELD_BOOL
        case .string, .encodable: nil
        }
    }

    /// Where the `State` the existential holds is, as Swift opens it in place: its own buffer, or the box
    /// the buffer's first word points at, the value after the box's header (two words), aligned. Nil when
    /// it is of another type, or elsewhere.
    private static func placement<State>(in existential: UnsafeMutablePointer<any Encodable>, of _: State.Type) -> Placement? {
        var found: UnsafeRawPointer?
        guard withState(existential, { (state: UnsafePointer<State>) in found = UnsafeRawPointer(state) }), let found else { return nil }
        let container = UnsafeRawPointer(existential)
        if found == container { return .buffer }
        let header = 2 * MemoryLayout<Int>.size
        let alignment = MemoryLayout<State>.alignment
        let offset = (header + alignment - 1) / alignment * alignment
        return found == container.load(as: UnsafeRawPointer.self) + offset ? .box(offset: offset) : nil
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
