import CFluxLua
import CLua
import Flux

/// The states of Swift stores that Lua views show: a Swift store's state as Lua sees it is a read-only
/// view (`flux_pushproxy`) naming a slot of this table, and reading `state.count` encodes just that field
/// of the slot's state ("never copy whole states into Lua on every change").
///
/// A slot keeps its state as long as a view of it can be reached, so a view a script keeps reads the state
/// it was made with after any later change. Views have no finalizer. Slots are handed out in batches of
/// ``batchSize``; every view of a batch has the batch's own metatable (its token), which Lua keeps as a weak
/// key while any of them lives. Every quarter of its batches handed out (or when none is free), the table
/// asks Lua which tokens are still alive (`flux_markproxies`) and frees the batches of the others, doubling its batches
/// unless a quarter of them come free: making a view costs the same however many a script keeps, a state
/// no view can reach goes soon after the collector has found its views, and a kept view keeps at most
/// ``batchSize`` states.
final class StateProxies {
    static let batchSize = 64

    // By slot.
    /// The state while a view of it may be reached; nothing (uninitialized memory) in a free slot, or one not
    /// handed out yet of the batch being filled: every other handed-out batch is full. By batch, each in a buffer
    /// of its own that adding batches never moves: a read borrows its state in place (its view is on the
    /// stack, so its batch stays held), whatever views a finalizer its allocations run makes meanwhile.
    private var states: ContiguousArray<UnsafeMutablePointer<any Encodable>> {
        get { slots.states }
        _modify { yield &slots.states }
    }
    var storeNames: ContiguousArray<String> { slots.storeNames }
    /// The field readers of each slot's state, when its type has them (``FieldReadable``).
    private var fieldTables: ContiguousArray<StateFieldTable?> {
        get { slots.fieldTables }
        _modify { yield &slots.fieldTables }
    }
    /// The field readers of each state type met so far; nil for a type that has none.
    private var tablesByType: [ObjectIdentifier: StateFieldTable?] = [:]
    /// Counts the times each batch was freed, wrapping (a view keeps 32 bits of it): a view names the
    /// generation of its batch it was made in.
    private var generations: ContiguousArray<UInt32> {
        get { slots.generations }
        _modify { yield &slots.generations }
    }

    /// The arrays above, together: making a view writes them in one access (with its one run-time
    /// exclusivity check), not one per array.
    private struct Slots {
        var states: ContiguousArray<UnsafeMutablePointer<any Encodable>> = []
        var storeNames: ContiguousArray<String> = []
        var fieldTables: ContiguousArray<StateFieldTable?> = []
        var generations: ContiguousArray<UInt32> = []

        /// Puts `state` of the store `storeName`, with its type's field readers, in `slot`; returns where it
        /// is and its batch's generation. Nothing here calls out: the state is copied in, a name and a
        /// table (each also held elsewhere) replaced.
        mutating func fill(_ slot: Int, with state: any Encodable, of storeName: String, fields: StateFieldTable?)
            -> (place: UnsafeMutablePointer<any Encodable>, generation: UInt32) {
            let place = states[slot / StateProxies.batchSize] + slot % StateProxies.batchSize
            place.initialize(to: state)
            if storeNames[slot] != storeName { storeNames[slot] = storeName } // mostly the slot's last name: no retain
            fieldTables[slot] = fields
            return (place, generations[slot / StateProxies.batchSize])
        }
    }

    private var slots = Slots()
    /// Each slot as C sees it, to load a direct field of its state without calling Swift (`flux_pushdirect`):
    /// where its state is, its type's direct fields and its generation; cleared when its batch is freed.
    /// Moved (and C told) only when batches are added.
    private var direct: UnsafeMutablePointer<FluxDirectSlot>?
    /// The whole state as a read-only table, once `pairs` or `#` needed it.
    private(set) var wholes: ContiguousArray<LuaRef?> = []
    /// Whether each batch is handed out (the one being filled, or one a view may still hold).
    private var held: [Bool] = []
    private var freeBatches: [Int] = []
    private var batchesSinceSweep = 0
    /// The batch being filled: its token (the metatable of its views), held here until it is full, and its
    /// next slot.
    private var token: LuaRef?
    private var next = 0
    private var end = 0
    /// The views' metatable, which each batch's copies, and the weak-keyed table of the tokens alive.
    private let metatable: LuaRef
    private let live: LuaRef
    /// What the metatables of this table's views hold (`flux_toproxy`).
    private var mark: UnsafeRawPointer?
    /// Reads the field a script asks a view for.
    private let reader: StateFieldEncoder

    /// Sets up the views' metatable on `lua`, with `__index` (a table a field holds is read through a
    /// read-only view of it, as a Lua store's).
    init(on lua: LuaStack) {
        reader = StateFieldEncoder(wanted: .position(0), stack: lua) { lua in
            try lua.ensureSpace(4)
            flux_pushview(lua.state)
        }
        lua.pushTable()                                     // [.., live]
        lua.pushTable(fieldCapacity: 1)
        lua.push("k")
        lua.rawSet("__mode", in: -2)
        _ = lua_setmetatable(lua.state, -2)
        live = LuaRef(popping: lua)
        lua.push(false)
        metatable = LuaRef(popping: lua)                    // a slot, for the metatable below
        let context = CContext.retained(self) // released by the state (the reader's __gc)
        mark = flux_openproxies(lua.state, { state, context, slot, generation in
            CContext.borrow(context!, as: StateProxies.self) { // the state holds it: no retain
                $0.read(slot: slot, generation: generation, on: LuaStack(state!))
            }
        }, context)                                         // [.., mt]
        lua.assign(metatable, from: -1)
        lua.pop()
    }

    /// [..] -> [.., view]. A new view of `state`, which the store `storeName` published; [.., metatable,
    /// view] when `keepingMetatable`, for a caller that drops both at once (`flux_pushproxy`).
    func push(_ state: any Encodable, of storeName: String, keepingMetatable: Bool = false, on lua: LuaStack) {
        push(state, of: storeName, fields: fields(of: state, on: lua), keepingMetatable: keepingMetatable, on: lua)
    }

    /// [..] -> [.., view] (or [.., metatable, view]). A new view of `state`, whose type's field readers are
    /// `fields` (``fields(of:on:)``).
    func push(_ state: any Encodable, of storeName: String, fields: StateFieldTable?, keepingMetatable: Bool = false,
              on lua: LuaStack) {
        if fields == nil, pushValue(state, keepingMetatable: keepingMetatable, on: lua) { return }
        if next == end { startBatch(lua) }
        let slot = next
        next += 1
        let (place, generation) = slots.fill(slot, with: state, of: storeName, fields: fields)
        if let fields, fields.directCount > 0 {
            direct.unsafelyUnwrapped[slot] = FluxDirectSlot(state: fields.storage(in: place)?.assumingMemoryBound(to: UInt8.self),
                                                            fields: fields.direct, count: UInt32(fields.directCount),
                                                            generation: generation)
        } else {
            direct.unsafelyUnwrapped[slot].state = nil
        }
        flux_pushproxy(lua.state, lua_Integer(slot), lua_Integer(generation), token.unsafelyUnwrapped.id,
                       keepingMetatable ? 1 : 0)
    }

    deinit {
        let filling = end > 0 ? end / Self.batchSize - 1 : -1
        for (batch, batchStates) in states.enumerated() {
            if held[batch] { batchStates.deinitialize(count: batch == filling ? next - batch * Self.batchSize : Self.batchSize) }
            batchStates.deallocate()
        }
        direct?.deallocate() // the reader checks its context, cleared before this runs, before it reads them
    }

    /// Whether each state type without field readers encodes to a value that is not a table: a scalar
    /// (`Store<Int>`, `<String>`, `<Double>`, `<Bool>`, an enum with a raw value), or an optional.
    private var valueTypes: [ObjectIdentifier: Bool] = [:]

    /// [..] -> [.., value] (or [.., nil, value] when `keepingMetatable`), true: a state whose type encodes to
    /// a value that is not a table reaches Lua as that value (a view has fields to read; a number has none).
    /// False, pushing nothing, for a type that encodes to a table: it gets a view. Such a type's state that
    /// encodes to a table after all (an optional) comes as a read-only table.
    private func pushValue(_ state: any Encodable, keepingMetatable: Bool, on lua: LuaStack) -> Bool {
        let type = ObjectIdentifier(Swift.type(of: state))
        let known = valueTypes[type]
        if known == false { return false }
        let base = lua.top
        do {
            try lua.ensureSpace(6)
            if keepingMetatable { lua.pushNil() }
            try LuaEncoder().push(state, to: lua)
            if lua.type(at: -1) == .table {
                guard known == true else {
                    lua.top = base
                    valueTypes[type] = false
                    return false
                }
                try reader.wrap(lua)
            }
        } catch {
            lua.top = base
            valueTypes[type] = false // a view reads it field by field, reporting what fails then
            return false
        }
        valueTypes[type] = true
        return true
    }

    /// The field readers of `state`'s type, made the first time one of its states is met; nil when it has
    /// none (it is read through `Encodable`).
    func fields(of state: any Encodable, on lua: LuaStack) -> StateFieldTable? {
        let type = ObjectIdentifier(Swift.type(of: state))
        if let known = tablesByType[type] { return known }
        var table: StateFieldTable?
        if let readable = state as? any FieldReadable {
            func make<State: FieldReadable>(_: State) -> StateFieldTable { StateFieldTable(of: State.self, on: lua, wrap: reader.wrap) }
            table = make(readable)
            var sample = state
            table?.learnPlacement(from: &sample)
        }
        tablesByType[type] = table
        return table
    }

    /// [..] -> [.., metatable]. The views' metatable, for the host to give its other metamethods before any
    /// view is made (each batch copies it).
    func pushMetatable(on lua: LuaStack) {
        lua.push(metatable)
    }

    /// The slot of the view at `index`, when it is one of this table's views (anything else is not).
    func slot(at index: Int32, on lua: LuaStack) -> Int? {
        var slot: lua_Integer = 0
        var generation: lua_Integer = 0
        guard flux_toproxy(lua.state, index, mark, &slot, &generation) != 0 else { return nil }
        return holds(slot, generation) ? Int(slot) : nil
    }

    /// Whether `slot` holds the state of `generation`: always, for a view that can be reached.
    private func holds(_ slot: lua_Integer, _ generation: lua_Integer) -> Bool {
        let batch = slot / lua_Integer(Self.batchSize)
        return slot >= 0 && batch < generations.count && lua_Integer(generations[Int(batch)]) == generation && held[Int(batch)]
    }

    /// The state in `slot`.
    func state(in slot: Int) -> any Encodable { place(slot).pointee }

    /// Where the state of `slot` is.
    private func place(_ slot: Int) -> UnsafeMutablePointer<any Encodable> {
        states[slot / Self.batchSize] + slot % Self.batchSize
    }

    /// Keeps the whole state of `slot` as `whole`.
    func keep(whole: LuaRef, in slot: Int) {
        wholes[slot] = whole
    }

    /// `__index` of a view: [view, key, ..] -> [view, key, .., value] (what the check pushed may be between). Returns 1, or a FLUX_RAISE value once the
    /// message is pushed.
    private func read(slot: lua_Integer, generation: lua_Integer, on lua: LuaStack) -> Int32 {
        guard holds(slot, generation) else {
            lua.push("a state view outlived its state")
            return FLUX_RAISE_WHERE
        }
        let slot = Int(slot)
        do {
            let state = place(slot)
            switch lua_type(lua.state, 2) {
            case LUA_TSTRING:
                var length = 0
                let bytes = lua_tolstring(lua.state, 2, &length) // a string: no conversion, no allocation
                let key = UnsafeRawBufferPointer(start: bytes, count: length)
                if let fields = fieldTables[slot], try fields.read(key, of: state, onto: lua) {
                    return 1
                }
                try reader.read(.key(key), of: state, onto: lua)
            case LUA_TNUMBER:
                guard let position = lua.integer(at: 2) else { lua.pushNil(); return 1 }
                try reader.read(.position(position), of: state, onto: lua)
            default: lua.pushNil()
            }
            return 1
        } catch {
            return lua.pushError(error)
        }
    }

    /// Hands out a free batch, sweeping first when none is left or a quarter of the batches were handed
    /// out since the last sweep: states no view can reach go soon, and a sweep (which looks at every
    /// batch) costs a view the same however many batches there are. The last batch's token is let go
    /// (its views hold it now).
    ///
    /// The new token is made first: its allocations may run finalizers that make views, and start batches,
    /// themselves. Nothing from the sweep on calls into Lua, so no finalizer sees a batch half handed out.
    private func startBatch(_ lua: LuaStack) {
        flux_newproxybatch(lua.state, metatable.id, live.id, mark)
        let made = LuaRef(popping: lua)
        guard next == end else { return } // a finalizer started a batch meanwhile: it has room
        token = nil
        batchesSinceSweep += 1
        if freeBatches.isEmpty || batchesSinceSweep * 4 >= held.count {
            batchesSinceSweep = 0
            sweep(lua)
        }
        let batch = freeBatches.removeLast()
        held[batch] = true
        flux_setproxybatch(lua.state, made.id, lua_Integer(batch))
        token = made
        next = batch * Self.batchSize
        end = next + Self.batchSize
    }

    /// Frees the batches no view can reach any more; doubles the batches unless a quarter of them are
    /// free.
    private func sweep(_ lua: LuaStack) {
        let count = held.count
        var marks = [UInt8](repeating: 0, count: count)
        marks.withUnsafeMutableBufferPointer { flux_markproxies(lua.state, live.id, $0.baseAddress, lua_Integer(count)) }
        for batch in 0 ..< count where held[batch] && marks[batch] == 0 {
            held[batch] = false
            freeBatches.append(batch)
            generations[batch] &+= 1
            free(batch)
        }
        guard freeBatches.count * 4 < count || count == 0 else { return }
        let added = max(count, 4)
        let slots = added * Self.batchSize
        for _ in 0 ..< added {
            states.append(UnsafeMutablePointer<any Encodable>.allocate(capacity: Self.batchSize))
        }
        self.slots.storeNames.append(contentsOf: repeatElement("", count: slots))
        fieldTables.append(contentsOf: repeatElement(nil, count: slots))
        generations.append(contentsOf: repeatElement(0, count: added))
        wholes.append(contentsOf: repeatElement(nil, count: slots))
        held.append(contentsOf: repeatElement(false, count: added))
        let moved = UnsafeMutablePointer<FluxDirectSlot>.allocate(capacity: states.count * Self.batchSize)
        moved.initialize(repeating: FluxDirectSlot(), count: states.count * Self.batchSize)
        if let direct {
            moved.update(from: direct, count: count * Self.batchSize)
            direct.deallocate()
        }
        direct = moved
        flux_setdirectslots(mark, moved, lua_Integer(states.count * Self.batchSize))
        freeBatches.append(contentsOf: (count ..< count + added).reversed())
    }

    /// Lets go of the states of `batch`, and of the whole tables made of them: in one pass over each array,
    /// not an access (with its checks) per slot.
    private func free(_ batch: Int) {
        let slots = batch * Self.batchSize ..< (batch + 1) * Self.batchSize
        states[batch].deinitialize(count: Self.batchSize) // handed out before the batch being filled: full
        for slot in slots { direct.unsafelyUnwrapped[slot].state = nil }
        wholes.withUnsafeMutableBufferPointer { wholes in
            for slot in slots where wholes[slot] != nil { wholes[slot] = nil }
        }
    }
}
