import Foundation

/// An action log on disk, read a buffer at a time: whatever the file's length, it holds one buffer
/// and one line in memory, so ``ActionReplayer/replay(file:progress:shouldStop:)`` replays a log of
/// millions of lines in the memory of one.
///
/// ```swift
/// let log = try ActionLogFile(path: "session.log")
/// try ActionReplayer(dispatcher: dispatcher).replay(file: log)
/// ```
public struct ActionLogFile {
    /// Where the log is.
    public let path: String

    /// The log at `path`; throws ``ActionLogFileError`` when there is no such file or it is a folder.
    public init(path: String) throws(ActionLogFileError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ActionLogFileError("cannot open \(path): no such file")
        }
        guard !isDirectory.boolValue else { throw ActionLogFileError("cannot read \(path): it is a directory") }
        self.path = path
    }

    /// How many bytes a read takes.
    static let bufferSize = 1 << 16

    /// Calls `body` with each line that is not blank, in order: its number (from 1) and its text, the
    /// whitespace around it (a `\r` before the `\n`) trimmed. A last line needs no newline.
    ///
    /// - Throws: ``ActionLogFileError`` for a file that cannot be read or a line that is not UTF-8
    ///   text (a NUL byte included: a binary file), with the line's number; and what `body` throws.
    public func forEachLine(_ body: (_ number: Int, _ line: Substring) throws -> Void) throws {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw ActionLogFileError("cannot read \(path): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        var number = 0
        var partial: [UInt8] = [] // a line begun in an earlier read
        func emit(_ bytes: some Collection<UInt8>) throws {
            number += 1
            guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
                throw ActionLogFileError("not a text file", line: number)
            }
            let line = Substring(text).trimmingWhitespace
            if !line.isEmpty { try body(number, line) }
        }
        while true {
            let chunk: Data
            do {
                guard let read = try handle.read(upToCount: Self.bufferSize), !read.isEmpty else { break }
                chunk = read
            } catch {
                throw ActionLogFileError("cannot read \(path): \(error.localizedDescription)", line: number + 1)
            }
            let bytes = [UInt8](chunk) // searched and sliced as an array: a `Data`'s iterator is several times slower
            var start = 0
            while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if partial.isEmpty {
                    try emit(bytes[start ..< newline])
                } else {
                    partial.append(contentsOf: bytes[start ..< newline])
                    try emit(partial)
                    partial.removeAll(keepingCapacity: true)
                }
                start = newline + 1
            }
            partial.append(contentsOf: bytes[start...])
        }
        if !partial.isEmpty { try emit(partial) }
    }
}

/// Why an action log file cannot be read (and at which line, when a line is at fault).
public struct ActionLogFileError: Error, CustomStringConvertible {
    /// What is wrong, e.g. `cannot open x.log: no such file`.
    public let message: String
    /// The line that could not be read, when the fault is in one.
    public let line: Int?

    public init(_ message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }

    public var description: String { message }
}
