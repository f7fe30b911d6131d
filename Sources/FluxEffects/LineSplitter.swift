/// Cuts a process's output into lines as it arrives, holding at most ``limit`` bytes of a line: a
/// longer line is handed on in pieces of that size, so no output, however long, sits in memory.
struct LineSplitter {
    /// The most bytes of one line held (1 MiB).
    static let limit = 1 << 20

    private var buffer: [UInt8] = []

    /// Adds `bytes`, handing each complete line (without its `\n` or `\r\n`) to `line`.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ line: (String) -> Void) {
        var start = 0
        for index in 0 ..< bytes.count where bytes[index] == UInt8(ascii: "\n") {
            buffer.append(contentsOf: bytes[start ..< index])
            emit(line)
            start = index + 1
        }
        var rest = bytes[start...]
        while buffer.count + rest.count >= Self.limit {
            let take = Self.limit - buffer.count
            buffer.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            line(String(decoding: buffer, as: UTF8.self))
            buffer.removeAll(keepingCapacity: true)
        }
        buffer.append(contentsOf: rest)
    }

    /// Hands on the last line when the output ended without a newline.
    mutating func finish(_ line: (String) -> Void) {
        if !buffer.isEmpty { emit(line) }
    }

    private mutating func emit(_ line: (String) -> Void) {
        if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
        line(String(decoding: buffer, as: UTF8.self))
        buffer.removeAll(keepingCapacity: true)
    }
}
