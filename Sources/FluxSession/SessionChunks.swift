import Flux
import Foundation
import GRDB

/// Large texts — a store's state of megabytes, saved again after every line, and in every undo step
/// and snapshot — stored in pieces shared between the rows that hold them, so that a line changing one
/// field of a large state writes the pieces around that field, not the whole state again.
///
/// A text of ``threshold`` bytes or more is cut where its content says (a rolling hash of the last
/// bytes), so that a change moves only the cuts near it; each piece is a row of the `chunk` table, and
/// the row holding the text holds `@chunks:12,13,14` instead. A piece equal to one of the store's last
/// saved state is that piece's row again. Texts below the threshold are stored as they are.
///
/// A store that encodes its state in pieces it keeps (``PiecewiseState``) hands them on: a piece object
/// stored before is its row again, without its bytes being cut, hashed or compared, so a line changing
/// one field of a 2 MB state costs the pieces that changed. A text read from pieces (a restored state,
/// an undo step's) and written again as it was read is those rows again too.
///
/// Pieces no row refers to any more are deleted by ``collect(in:)`` now and then (a mark and sweep of
/// every row that may refer to them), not counted one by one.
final class SessionChunks {
    /// The smallest text stored in pieces.
    static let threshold = 64 * 1024
    /// How a text stored in pieces begins (an encoded state never begins with `@`).
    static let prefix = "@chunks:"
    private static let minimum = 2_048, maximum = 65_536
    /// A cut where the rolling hash's top 13 bits are 0: pieces of about 8 KiB past the minimum.
    private static let cutBits = 13

    /// The rolling hash's table: a random value for each byte, the same in every process.
    private static let gear: [UInt64] = {
        var state: UInt64 = 0x5EED_F1_0C
        return (0 ..< 256).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }()

    /// A piece known to be stored: its row and its bytes (compared before a row is taken for it).
    private struct Known {
        let id: Int64
        let bytes: [UInt8]
    }

    /// The pieces of each store's last saved state, by their hash in this process.
    private var known: [String: [Int: [Known]]] = [:]
    /// What a transaction under way added to ``known``, kept once it commits (``commit()``).
    private var staged: [String: [Int: [Known]]] = [:]
    /// A piece stored, known by its object.
    private struct Stored {
        let piece: StatePiece
        let id: Int64
    }

    /// The pieces of the texts of each store stored or read lately, by their objects.
    private var knownPieces: [String: [ObjectIdentifier: Stored]] = [:]
    /// What a transaction under way added to ``knownPieces``.
    private var stagedPieces: [String: [ObjectIdentifier: Stored]] = [:]
    /// The texts read from pieces lately, with those pieces (by store).
    private var read: [(store: String, text: String, pieces: [StatePiece])] = []
    /// The pieces a store's text was joined from, given the text and the store's name, when the store
    /// keeps them (see ``PiecewiseState/pieces(ofEncoded:)``).
    var source: ((String, String) -> [StatePiece]?)?

    /// Pieces written since the last ``collect(in:)``.
    private(set) var writtenSinceCollect = 0
    private var stagedWritten = 0

    /// `text` as a row stores it: itself when short or already stored in pieces, else its pieces'
    /// rows, writing those not stored yet. With `current`, the pieces become the store's last saved
    /// state's (once the transaction commits), the ones the next save of the store is compared with.
    func store(_ text: String, of store: String, current: Bool, in db: GRDB.Database) throws -> String {
        guard text.utf8.count >= Self.threshold, !text.hasPrefix(Self.prefix) else { return text }
        if let pieces = read.last(where: { $0.store == store && StatePiece.sameText($0.text, text) })?.pieces ?? source?(text, store) {
            return try self.store(pieces: pieces, of: store, current: current, in: db)
        }
        let bytes = Array(text.utf8)
        var ids: [Int64] = []
        var pieces: [Int: [Known]] = [:]
        let insert = try db.cachedStatement(sql: "INSERT INTO chunk (data) VALUES (?)")
        for range in Self.cuts(bytes) {
            let (id, known) = try row(of: Array(bytes[range]), store: store, insert: insert, in: db)
            ids.append(id)
            pieces[known.hash, default: []].append(known.piece)
        }
        if current {
            staged[store] = pieces
            stagedPieces[store] = [:]
        }
        return Self.prefix + ids.map(String.init).joined(separator: ",")
    }

    /// A text given as `pieces` stored as ``store(_:of:current:in:)`` does: a piece met before is its
    /// row again; a new one is one row (cut where its content says when it is over ``maximum``), or the
    /// row of an equal piece of the store's last saved state.
    private func store(pieces: [StatePiece], of store: String, current: Bool, in db: GRDB.Database) throws -> String {
        var ids: [Int64] = []
        var identities: [ObjectIdentifier: Stored] = [:], hashed: [Int: [Known]] = [:]
        let insert = try db.cachedStatement(sql: "INSERT INTO chunk (data) VALUES (?)")
        for piece in pieces {
            let key = ObjectIdentifier(piece)
            if let found = stagedPieces[store]?[key] ?? knownPieces[store]?[key], found.piece === piece {
                ids.append(found.id)
                identities[key] = found
                continue
            }
            let ranges = piece.bytes.count <= Self.maximum ? [0 ..< piece.bytes.count] : Self.cuts(piece.bytes)
            for range in ranges {
                let (id, known) = try row(of: Array(piece.bytes[range]), store: store, insert: insert, in: db)
                ids.append(id)
                hashed[known.hash, default: []].append(known.piece)
                if ranges.count == 1 { identities[key] = Stored(piece: piece, id: id) }
            }
        }
        if current {
            stagedPieces[store] = identities
            // The pieces known by their hash stay known while this text holds their rows.
            let live = Set(ids)
            var kept = (staged[store] ?? known[store] ?? [:]).compactMapValues { found -> [Known]? in
                let alive = found.filter { live.contains($0.id) }
                return alive.isEmpty ? nil : alive
            }
            kept.merge(hashed) { $0 + $1 }
            staged[store] = kept
        } else {
            stagedPieces[store, default: knownPieces[store] ?? [:]].merge(identities) { $1 }
        }
        return Self.prefix + ids.map(String.init).joined(separator: ",")
    }

    /// The row of `piece`: that of an equal piece of the store's last saved state, or a new one.
    private func row(of piece: [UInt8], store: String, insert: Statement, in db: GRDB.Database) throws -> (Int64, (hash: Int, piece: Known)) {
        let hash = Self.hash(piece)
        let id: Int64
        if let found = lookup(hash, piece, store: store) {
            id = found
        } else {
            try insert.execute(arguments: [piece.withUnsafeBytes { Data($0) }])
            id = db.lastInsertedRowID
            stagedWritten += 1
        }
        return (id, (hash, Known(id: id, bytes: piece)))
    }

    /// The row of a piece equal to `piece` among those known or staged for `store`.
    private func lookup(_ hash: Int, _ piece: [UInt8], store: String) -> Int64? {
        for source in [staged[store], known[store]] {
            if let found = source?[hash]?.first(where: { $0.bytes == piece }) { return found.id }
        }
        return nil
    }

    /// The transaction that stored texts committed: their pieces are known from now on.
    func commit() {
        known.merge(staged) { $1 }
        staged = [:]
        knownPieces.merge(stagedPieces) { $1 }
        stagedPieces = [:]
        writtenSinceCollect += stagedWritten
        stagedWritten = 0
    }

    /// The transaction was rolled back: the pieces it wrote are not there.
    func discard() {
        staged = [:]
        stagedPieces = [:]
        stagedWritten = 0
    }

    /// The text a row holds: `stored` itself, or the text its pieces make up. With `current` and a
    /// store, the pieces are remembered as that store's last saved state's. A text of `currentOf` or
    /// `remember`'s store, stored again as it is, is stored as these pieces' rows.
    ///
    /// - Throws: ``DamagedRow`` (of `table`, row `key`) when a piece is missing or the pieces do not
    ///   make up text.
    func text(_ stored: String, table: String, key: String, currentOf store: String? = nil, remember: String? = nil,
              in db: GRDB.Database) throws -> String {
        guard stored.hasPrefix(Self.prefix) else { return stored }
        let ids = Self.ids(in: stored.dropFirst(Self.prefix.count))
        guard let ids, !ids.isEmpty else {
            throw DamagedRow(table: table, key: key, problem: "its list of pieces is damaged")
        }
        var data: [Int64: [UInt8]] = [:]
        let list = "[" + Set(ids).map(String.init).joined(separator: ",") + "]"
        for row in try Row.fetchAll(db, sql: "SELECT id, data FROM chunk WHERE id IN (SELECT value FROM json_each(?))", arguments: [list]) {
            let value: DatabaseValue = row["data"]
            guard case let .blob(bytes) = value.storage else { continue }
            data[row["id"]] = [UInt8](bytes)
        }
        var bytes: [UInt8] = []
        var pieces: [Int: [Known]] = [:]
        for id in ids {
            guard let piece = data[id] else {
                throw DamagedRow(table: table, key: key, problem: "piece \(id) of its text is missing from table 'chunk'")
            }
            bytes += piece
            if store != nil { pieces[Self.hash(piece), default: []].append(Known(id: id, bytes: piece)) }
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw DamagedRow(table: table, key: key, problem: "its pieces do not make up text")
        }
        if let store { known[store] = pieces }
        if let owner = store ?? remember {
            var objects: [Int64: StatePiece] = [:]
            let read = ids.map { id in
                if let piece = objects[id] { return piece }
                let piece = StatePiece(data[id] ?? [])
                objects[id] = piece
                knownPieces[owner, default: [:]][ObjectIdentifier(piece)] = Stored(piece: piece, id: id)
                return piece
            }
            self.read.append((owner, text, read))
            if self.read.count > 3 { self.read.removeFirst() }
        }
        return text
    }

    /// `stored` as it is, once its pieces are found to be there (a list of pieces is not read into
    /// text: see ``DeferredSavedState``).
    ///
    /// - Throws: ``DamagedRow`` (of `table`, row `key`) when the list is damaged or a piece is missing.
    func checked(_ stored: String, table: String, key: String, in db: GRDB.Database) throws -> String {
        guard stored.hasPrefix(Self.prefix) else { return stored }
        guard let ids = Self.ids(in: stored.dropFirst(Self.prefix.count)), !ids.isEmpty else {
            throw DamagedRow(table: table, key: key, problem: "its list of pieces is damaged")
        }
        let unique = Set(ids)
        let list = "[" + unique.map(String.init).joined(separator: ",") + "]"
        let found = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM chunk WHERE id IN (SELECT value FROM json_each(?)) AND typeof(data) = 'blob'
            """, arguments: [list]) ?? 0
        if found != unique.count {
            let present = Set(try Int64.fetchAll(db, sql: "SELECT id FROM chunk WHERE id IN (SELECT value FROM json_each(?)) AND typeof(data) = 'blob'",
                                                 arguments: [list]))
            let missing = ids.first { !present.contains($0) } ?? ids[0]
            throw DamagedRow(table: table, key: key, problem: "piece \(missing) of its text is missing from table 'chunk'")
        }
        return stored
    }

    /// A piece's hash, in this process (pieces are compared byte for byte before one is taken for another).
    private static func hash(_ piece: [UInt8]) -> Int {
        var hasher = Hasher()
        piece.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// The rows a stored list names, nil when it is not a list of numbers.
    private static func ids(in list: Substring) -> [Int64]? {
        var ids: [Int64] = []
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let id = Int64(part) else { return nil }
            ids.append(id)
        }
        return ids
    }

    /// Where the text is cut: after a byte where the rolling hash of the bytes before has its top
    /// ``cutBits`` bits 0, with pieces of ``minimum`` to ``maximum`` bytes.
    static func cuts(_ bytes: [UInt8]) -> [Range<Int>] {
        var cuts: [Range<Int>] = []
        var start = 0, hash: UInt64 = 0
        let shift = UInt64(64 - cutBits)
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                hash = (hash << 1) &+ gear[Int(buffer[index])]
                index += 1
                let length = index - start
                if length >= maximum || (length >= minimum && hash >> shift == 0) {
                    cuts.append(start ..< index)
                    start = index
                    hash = 0
                }
            }
        }
        if start < bytes.count { cuts.append(start ..< bytes.count) }
        return cuts
    }

    /// Deletes the pieces no row refers to (the states, the undo steps, the snapshots and the states
    /// kept aside), in the transaction `db` is in.
    func collect(in db: GRDB.Database) throws {
        var live = Set<Int64>()
        func mark(_ text: String) {
            var rest = text[...]
            while let start = rest.range(of: Self.prefix) {
                let list = rest[start.upperBound...].prefix { $0.isNumber || $0 == "," }
                for part in list.split(separator: ",") { if let id = Int64(part) { live.insert(id) } }
                rest = rest[start.upperBound...]
            }
        }
        for (table, column) in [("state", "state"), ("snapshot", "state"), ("staleState", "state"), ("history", "changes")] {
            let texts = try String.fetchAll(db, sql: """
                SELECT \(column) FROM \(table) WHERE typeof(\(column)) = 'text' AND instr(\(column), '\(Self.prefix)') > 0
                """)
            texts.forEach(mark)
        }
        let list = "[" + live.map(String.init).joined(separator: ",") + "]"
        try db.execute(sql: "DELETE FROM chunk WHERE id NOT IN (SELECT value FROM json_each(?))", arguments: [list])
        known = known.mapValues { pieces in pieces.mapValues { $0.filter { live.contains($0.id) } } }
        knownPieces = knownPieces.mapValues { pieces in pieces.filter { live.contains($0.value.id) } }
        writtenSinceCollect = 0
    }
}
