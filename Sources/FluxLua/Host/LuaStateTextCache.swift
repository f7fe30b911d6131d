import CLua
import CFluxLua
import Flux

/// The text ``LuaStateText`` wrote for each published table of a Lua state, kept while the table lives:
/// a published table never changes, so the parts of a state a line did not touch (shared with the state
/// saved before) are copied from here, and saving a large state after a one-field change costs the
/// tables that changed, not a walk of the whole state.
///
/// Two tables with weak keys, so an entry goes with its table: `texts[t]`, the text, and `counts[t]`,
/// the values it holds (a state past ``LuaValue/maximumValues`` is refused as when walked). Only
/// tables whose text is at most ``largest`` bytes are kept there: a state's root and its large tables are
/// copied by every change, and keeping theirs would hold a copy of the whole text per undo step.
///
/// A large table (a list of thousands of items) is kept instead by where it is in its store's state
/// (``LargeTable``, one per place): its text in runs of entries, each a ``StatePiece``, with its entries
/// in order. The table written at that place next — the copy a handler made of it, one entry changed —
/// is compared with them entry by entry (a published value is the same value only if it is the very
/// same table): an unchanged run is its piece again, unwritten, and only the runs that changed are
/// written. So a line changing one item of a 2 MB list writes one run of it, and a session stores the
/// other pieces as the rows it stored them in before.
final class LuaStateTextCache {
    /// The longest text kept in `texts`; a published table's text longer than this is kept in runs.
    static let largest = 16 * 1024
    /// The length a run of a large table's entries is cut at, when it is first written.
    static let run = 8 * 1024

    let texts: LuaRef
    let counts: LuaRef
    /// The large tables last written, by store and place in its state (`store\0state.items`).
    var large: [String: LargeTable] = [:]

    /// A large table as last written at one place of a store's state.
    final class LargeTable {
        /// The table.
        let table: LuaRef
        /// Its entries in `next` order, key then value (`kv[2i-1]`, `kv[2i]`).
        let kv: LuaRef
        /// How many entries `kv` holds.
        let count: Int
        /// Its text between `[` and `]`, in runs of entries.
        let runs: [Run]
        /// The values it holds, counted as the writer counts them.
        let values: Int

        init(table: LuaRef, kv: LuaRef, count: Int, runs: [Run], values: Int) {
            self.table = table
            self.kv = kv
            self.count = count
            self.runs = runs
            self.values = values
        }
    }

    /// A run of a large table's entries: how many, the values they hold, and their text (a `,` before
    /// each but the table's first entry) in pieces — several when it holds a large table itself.
    struct Run {
        let entries: Int
        let values: Int
        let pieces: [StatePiece]
    }

    init(on lua: LuaStack) throws {
        try lua.ensureSpace(3)
        func weakTable() -> LuaRef {
            lua.pushTable()
            lua.pushTable(fieldCapacity: 1)
            lua.push("k")
            lua.rawSet("__mode", in: -2)
            _ = lua_setmetatable(lua.state, -2)
            return LuaRef(popping: lua)
        }
        texts = weakTable()
        counts = weakTable()
    }

    /// The states read from text lately, with that text: written again (an undo after a restart puts
    /// back a state read from its saved pieces, and its journal snapshot and save write it), such a state
    /// is that text, without a walk of it.
    private var read: [(state: LuaRef, text: String)] = []
    /// The texts written lately in pieces, with their pieces: see ``pieces(of:)``.
    private var written: [(text: String, pieces: [StatePiece])] = []
    /// How many of each are kept: the state now and the one an undo or redo went from.
    private static let kept = 2

    /// The published state at `index` was read from `text`.
    func remember(read index: Int32, from text: String, on lua: LuaStack) {
        let index = lua.absoluteIndex(index)
        guard text.utf8.count > Self.largest, flux_ispublished(lua.state, index) != 0 else { return }
        read.append((lua.ref(at: index), text))
        if read.count > Self.kept { read.removeFirst() }
    }

    /// The text the state at `index` was read from lately, if it was.
    func readText(of index: Int32, on lua: LuaStack) -> String? {
        let index = lua.absoluteIndex(index)
        for entry in read.reversed() {
            lua.push(entry.state)
            defer { lua.pop() }
            if lua.rawEqual(index, -1) { return entry.text }
        }
        return nil
    }

    /// `text` was written joining `pieces`.
    func remember(written text: String, pieces: [StatePiece]) {
        guard pieces.count > 1 else { return }
        written.append((text, pieces))
        if written.count > Self.kept { written.removeFirst() }
    }

    /// The pieces `text` was joined from, when it is one written lately: a session stores the pieces it
    /// stored before as their rows, without cutting and hashing the whole text again.
    func pieces(of text: String) -> [StatePiece]? {
        written.last { StatePiece.sameText($0.text, text) }?.pieces
    }

    /// Forgets the large tables of `store` at places other than `places` (where its state no longer
    /// holds one), so that the cache holds at most the large tables of the states last written.
    func keep(placesOf store: String, only places: Set<String>) {
        guard large.count > places.count else { return }
        let prefix = Self.key(store: store, path: "")
        large = large.filter { !$0.key.hasPrefix(prefix) || places.contains($0.key) }
    }

    /// Forgets the large tables of the stores `isGone` says are gone (unloaded, redefined away).
    func forgetStores(where isGone: (String) -> Bool) {
        guard !large.isEmpty else { return }
        large = large.filter { !isGone(String($0.key.prefix { $0 != "\u{0}" })) }
    }

    /// The key of a place in a store's state.
    static func key(store: String, path: String) -> String { store + "\u{0}" + path }
}
