/// A short text (at most 32 bytes of UTF-8) written from its last byte back to its first into four
/// words, then appended to a buffer with one copy: for the few bytes of a number, an append per byte
/// costs more than making the bytes.
///
/// Each byte put before the text shifts the words (little-endian, first word first in memory) up by
/// one byte, so the text is always their first ``count`` bytes.
struct ShortText {
    /// The most bytes it holds.
    static let capacity = 32

    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// How many bytes it holds.
    private(set) var count = 0
    /// Whether a byte was put before it that did not fit (and was not kept).
    private(set) var overflowed = false

    /// Puts `byte` before the text.
    mutating func prepend(_ byte: UInt8) {
        guard count < Self.capacity else { return overflowed = true }
        words.3 = words.3 << 8 | words.2 >> 56
        words.2 = words.2 << 8 | words.1 >> 56
        words.1 = words.1 << 8 | words.0 >> 56
        words.0 = words.0 << 8 | UInt64(byte)
        count += 1
    }

    /// Puts two bytes before the text, `first` first.
    private mutating func prepend(_ first: UInt8, _ second: UInt8) {
        guard count + 2 <= Self.capacity else { return overflowed = true }
        words.3 = words.3 << 16 | words.2 >> 48
        words.2 = words.2 << 16 | words.1 >> 48
        words.1 = words.1 << 16 | words.0 >> 48
        words.0 = words.0 << 16 | UInt64(second) << 8 | UInt64(first)
        count += 2
    }

    /// Puts `value`'s decimal digits before the text, with leading zeros up to `minimumCount` digits;
    /// two digits at a time.
    mutating func prependDigits(_ value: UInt64, minimumCount: Int = 1) {
        let end = count
        var left = value
        while left >= 10 {
            let pair = UInt8(truncatingIfNeeded: left % 100)
            left /= 100
            prepend(UInt8(ascii: "0") + pair / 10, UInt8(ascii: "0") + pair % 10)
        }
        if left > 0 || count == end { prepend(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: left)) }
        while count - end < minimumCount, !overflowed { prepend(UInt8(ascii: "0")) }
    }

    /// Appends the text to `output`.
    func append(to output: inout [UInt8]) {
        let bytes = (words.0.littleEndian, words.1.littleEndian, words.2.littleEndian, words.3.littleEndian)
        withUnsafeBytes(of: bytes) { raw in
            // Rebased: raw bytes are appended with one copy, a slice of them byte by byte.
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[..<count]))
        }
    }
}
