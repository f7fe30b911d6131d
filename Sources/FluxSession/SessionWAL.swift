import Foundation

/// Tells a write-ahead log that belongs to a session's database from one that does not, before SQLite
/// opens it: SQLite applies whatever `NAME.sqlite-wal` lies beside the file, so another session's log
/// copied there would silently replace every state.
///
/// Each session's database carries a random id in its header (`PRAGMA user_version`), set when it is
/// made and written again by every save, so that every log a session writes holds its header page with
/// the id. Before the database is opened, the log's last committed header page (its frames checked as
/// SQLite checks them: salts and checksums) is compared with the file's: another id is another
/// session's log. A log with no header page in it (one only a compaction's cleanup wrote, or one an
/// older fluxsh wrote) cannot be told apart, and is taken as the database's.
enum SessionWAL {
    /// A log whose header page names another database.
    struct Foreign: Error, CustomStringConvertible {
        let path: String
        let expected: UInt32
        let found: UInt32
        var description: String {
            "\(path)-wal belongs to another database (its session id is \(found), this one's \(expected)), "
                + "so it was not applied"
        }
    }

    /// Where a database header keeps `user_version`.
    static let idOffset = 60

    /// Checks the log beside the database at `path`, if any.
    ///
    /// - Throws: ``Foreign`` when the log's header page carries another session id than the file's.
    static func check(_ path: String) throws {
        guard let wal = FileManager.default.contents(atPath: path + "-wal"), wal.count > 32,
              let header = FileManager.default.contents(atPath: path).map({ $0.prefix(100) }), header.count == 100 else { return }
        let expected = word(header, at: idOffset, bigEndian: true)
        guard expected != 0, let page = lastCommittedHeaderPage(in: wal), page.count >= 100 else { return }
        let found = word(page, at: idOffset, bigEndian: true)
        if found != expected { throw Foreign(path: path, expected: expected, found: found) }
    }

    /// The database's first page as the log's last commit left it, nil when no commit holds it (or the
    /// log is not one SQLite would read).
    static func lastCommittedHeaderPage(in wal: Data) -> Data? {
        let bytes = [UInt8](wal)
        let magic = word(bytes, at: 0, bigEndian: true)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return nil }
        let bigEndian = magic & 1 == 1
        let pageSize = Int(word(bytes, at: 8, bigEndian: true))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return nil }
        let salts = (word(bytes, at: 16, bigEndian: true), word(bytes, at: 20, bigEndian: true))
        var sum = checksum(bytes, 0 ..< 24, bigEndian: bigEndian, seed: (0, 0))
        guard sum == (word(bytes, at: 24, bigEndian: true), word(bytes, at: 28, bigEndian: true)) else { return nil }
        var offset = 32, pending: Range<Int>?, committed: Range<Int>?
        while offset + 24 + pageSize <= bytes.count {
            let page = word(bytes, at: offset, bigEndian: true), commit = word(bytes, at: offset + 4, bigEndian: true)
            guard (word(bytes, at: offset + 8, bigEndian: true), word(bytes, at: offset + 12, bigEndian: true)) == salts else { break }
            sum = checksum(bytes, offset ..< offset + 8, bigEndian: bigEndian, seed: sum)
            sum = checksum(bytes, offset + 24 ..< offset + 24 + pageSize, bigEndian: bigEndian, seed: sum)
            guard sum == (word(bytes, at: offset + 16, bigEndian: true), word(bytes, at: offset + 20, bigEndian: true)) else { break }
            if page == 1 { pending = offset + 24 ..< offset + 24 + pageSize }
            if commit != 0 { committed = pending ?? committed }
            offset += 24 + pageSize
        }
        return committed.map { Data(bytes[$0]) }
    }

    /// SQLite's log checksum over `range` (a multiple of 8 bytes), words read in the log's byte order.
    private static func checksum(_ bytes: [UInt8], _ range: Range<Int>, bigEndian: Bool, seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var index = range.lowerBound
        while index + 8 <= range.upperBound {
            s0 = s0 &+ word(bytes, at: index, bigEndian: bigEndian) &+ s1
            s1 = s1 &+ word(bytes, at: index + 4, bigEndian: bigEndian) &+ s0
            index += 8
        }
        return (s0, s1)
    }

    private static func word<Bytes: Collection<UInt8>>(_ bytes: Bytes, at offset: Int, bigEndian: Bool) -> UInt32
        where Bytes.Index == Int {
        let start = bytes.startIndex + offset
        var value: UInt32 = 0
        for index in 0 ..< 4 {
            let byte = UInt32(bytes[start + (bigEndian ? index : 3 - index)])
            value = (value << 8) | byte
        }
        return value
    }
}
