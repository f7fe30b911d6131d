#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The C functions, under names the writer's own methods do not hide.
private let systemWrite = write
private let systemClose = close
private let systemUmask = umask

/// Writes a file so that a failure loses nothing already there: every write is checked and is whole
/// or not at all, and a file replaced is written beside its target and renamed over it.
///
/// A symbolic link is followed to the file it names, so the link stays a link. A FIFO, terminal or
/// other device is written to as it is, never replaced by a regular file. A file-size limit
/// (`ulimit -f`) makes a write fail with an error rather than end the process.
///
/// ```swift
/// let log = try FileWriter(path: "session.jsonl", mode: .new)   // refuses a file that holds something
/// try log.write(line + "\n")                                     // throws FileError on a full disk
/// try log.close()
/// try FileWriter.replace("settings.txt", with: text)           // the old file, or the new one whole
/// ```
public final class FileWriter {
    /// How a writer treats the file already at its path.
    public enum Mode: Sendable {
        /// A file that does not exist or is empty; one that holds anything is refused (`EEXIST`).
        case new
        /// Writes go after what the file holds; it is created when missing.
        case append
        /// The writes go to a file beside the target, renamed over it by ``close()``: until then, and
        /// when anything fails, the target stays as it was.
        case replace
    }

    /// The path as given.
    public let path: String
    /// How the file already there is treated.
    public let mode: Mode
    /// The file written in the end: `path` with its symbolic links followed.
    public let target: String

    private var descriptor: Int32
    /// The file beside the target that `.replace` writes, until ``close()`` renames it.
    private var temporary: String?
    /// Whether the file is a regular one, which a failed write can be cut back on.
    private let isRegular: Bool

    /// Opens `path` for writing as `mode` says.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - mode: What to do with the file already there.
    ///   - permissions: The permissions of a file created (less the umask); a replaced file keeps its own.
    /// - Throws: ``FileError``: `EEXIST` for a ``Mode/new`` file that holds something, `ENXIO` for a
    ///   FIFO nobody reads, and whatever `open` says.
    public init(path: String, mode: Mode, permissions: mode_t = 0o644) throws {
        _ = Self.fileSizeLimitFails
        self.path = path
        self.mode = mode
        target = Self.followingLinks(path)
        var info = stat()
        let exists = stat(target, &info) == 0
        let kind = info.st_mode & S_IFMT
        if exists, kind != S_IFREG, kind != S_IFDIR {
            // A FIFO or device: written to in place. Opened without blocking, so a FIFO nobody reads is
            // an error (ENXIO) rather than a wait for ever.
            descriptor = open(target, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { throw FileError(path: path, operation: "write", code: errno) }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
            isRegular = false
            return
        }
        isRegular = true
        // Refused before any mode's own check: a folder is neither a file that holds something nor one to
        // append to or replace.
        if exists, kind == S_IFDIR { throw FileError(path: path, operation: "write", code: EISDIR) }
        switch mode {
        case .new where exists && info.st_size > 0:
            throw FileError(path: path, operation: "create", code: EEXIST)
        case .new, .append:
            descriptor = open(target, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, permissions)
            guard descriptor >= 0 else { throw FileError(path: path, operation: "write", code: errno) }
        case .replace:
            var template = Array((Self.directory(of: target) + "/." + Self.name(of: target) + ".XXXXXX").utf8CString)
            descriptor = mkstemp(&template)
            guard descriptor >= 0 else { throw FileError(path: path, operation: "create a file beside", code: errno) }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, O_APPEND)
            temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            _ = fchmod(descriptor, exists ? info.st_mode & 0o7777 : permissions & ~Self.umask)
        }
    }

    /// A writer not closed is closed; a replacement not closed is dropped, leaving the target as it was.
    deinit {
        discard()
    }

    /// Writes `text` whole, or, on a regular file, not at all: a write cut short (a full disk) is
    /// undone, so the file never ends in half a line.
    ///
    /// - Throws: ``FileError`` naming the file and the reason (`ENOSPC`, `EFBIG`, `EIO`, …).
    public func write(_ text: String) throws {
        guard descriptor >= 0 else { throw FileError(path: path, operation: "write", code: EBADF) }
        let bytes = Array(text.utf8)
        let start = isRegular ? lseek(descriptor, 0, SEEK_END) : -1
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                let code = written < 0 ? errno : EIO
                if offset > 0, start >= 0 { _ = ftruncate(descriptor, start) }
                throw FileError(path: path, operation: "write", code: code)
            }
            offset += written
        }
    }

    /// Finishes the file: a replacement is flushed to the disk and renamed over the target.
    ///
    /// - Throws: ``FileError`` when the data could not be flushed or put in place; a replacement that
    ///   fails leaves the target as it was.
    public func close() throws {
        guard descriptor >= 0 else { return }
        let fd = descriptor
        descriptor = -1
        guard let temporary else {
            guard systemClose(fd) == 0 else { throw FileError(path: path, operation: "write", code: errno) }
            return
        }
        self.temporary = nil
        // Flushed before the rename: a crash must leave the old file or the whole new one.
        if fsync(fd) != 0 || systemClose(fd) != 0 {
            let code = errno
            unlink(temporary)
            throw FileError(path: path, operation: "write", code: code)
        }
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileError(path: path, operation: "replace", code: code)
        }
    }

    /// Stops writing: a replacement is dropped and the target left as it was; other files keep what
    /// was written.
    public func discard() {
        guard descriptor >= 0 else { return }
        _ = systemClose(descriptor)
        descriptor = -1
        if let temporary { unlink(temporary) }
        temporary = nil
    }

    /// Replaces the file at `path` with `text`, whole or not at all.
    ///
    /// - Throws: ``FileError``; the file is then as it was.
    public static func replace(_ path: String, with text: String, permissions: mode_t = 0o644) throws {
        let writer = try FileWriter(path: path, mode: .replace, permissions: permissions)
        do {
            try writer.write(text)
            try writer.close()
        } catch {
            writer.discard()
            throw error
        }
    }

    // MARK: - Paths

    /// `path` with its symbolic links followed (up to 40, as the kernel does), even to a file that
    /// does not exist yet.
    static func followingLinks(_ path: String) -> String {
        var current = path
        for _ in 0 ..< 40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length > 0 else { return current }
            let link = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : directory(of: current) + "/" + link
        }
        return current
    }

    private static func directory(of path: String) -> String {
        let folder = PathParts.folder(of: path)
        return folder.isEmpty ? "." : folder
    }

    private static func name(of path: String) -> String { PathParts.name(of: path) }

    // MARK: - The process

    /// The process's umask, read once (reading it means setting it).
    private static let umask: mode_t = {
        let mask = systemUmask(0o022)
        _ = systemUmask(mask)
        return mask
    }()

    /// Past a file-size limit the kernel sends SIGXFSZ, which ends the process unless ignored; ignored,
    /// the write fails with `EFBIG` and is reported like a full disk. Whatever else writes files (a
    /// session's database) evaluates it too.
    public static let fileSizeLimitFails: Void = {
        _ = signal(SIGXFSZ, SIG_IGN)
    }()
}
