import Foundation

/// A run of bytes of a state's text, kept by the store that encoded it from save to save: the same
/// piece object given again holds the same bytes, so a session stores it again as the row it got the
/// first time, without reading or hashing its bytes.
package final class StatePiece {
    /// The piece's bytes (UTF-8 text, cut anywhere).
    package let bytes: [UInt8]

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether two texts hold the same bytes: at once when they share their storage (the same text
    /// handed on), else compared byte for byte.
    package static func sameText(_ first: String, _ second: String) -> Bool {
        guard first.utf8.count == second.utf8.count else { return false }
        guard !first.isEmpty else { return true }
        var first = first, second = second
        return first.withUTF8 { a in
            second.withUTF8 { b in a.baseAddress == b.baseAddress || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    /// The text the pieces make up.
    /// (Copied once, straight into the text's storage: a state of megabytes is joined after every line.)
    package static func joined(_ pieces: [StatePiece]) -> String {
        if pieces.count == 1 { return String(decoding: pieces[0].bytes, as: UTF8.self) }
        let count = pieces.reduce(0) { $0 + $1.bytes.count }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var offset = 0
            for piece in pieces {
                _ = UnsafeMutableBufferPointer(rebasing: buffer[offset ..< offset + piece.bytes.count]).initialize(from: piece.bytes)
                offset += piece.bytes.count
            }
            return offset
        }
    }
}

/// A store whose state's text comes in pieces it keeps (``StatePiece``): a large state in which a line
/// changed one field gives back the pieces it gave before except the few around that field.
package protocol PiecewiseState: PersistentState {
    /// The pieces `text` was joined from, when it is a text ``PersistentState/encodeState(_:)`` gave
    /// lately (the state now, or the one an undo went from); nil otherwise.
    func pieces(ofEncoded text: String) -> [StatePiece]?
}
