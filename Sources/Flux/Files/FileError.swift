#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that could not be opened, read, written or put in place.
///
/// ```swift
/// FileError(path: "/home/a/log.jsonl", operation: "write", code: ENOSPC).description
/// // cannot write /home/a/log.jsonl: No space left on device
/// ```
public struct FileError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file.
    public var path: String
    /// What failed: `open`, `read`, `write`, `create a directory for`, `rename`, ….
    public var operation: String
    /// The `errno` it failed with.
    public var code: Int32

    /// An error for `operation` on `path`, with `code` as the reason.
    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    /// The failure as a message, e.g. `cannot write /home/a/log.jsonl: No space left on device`.
    public var description: String {
        "cannot \(operation) \(path): \(String(cString: strerror(code)))"
    }
}
