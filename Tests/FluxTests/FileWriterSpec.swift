import Flux
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Writing a file")
struct FileWriterSpec {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flux-files-\(UUID().uuidString)").path

    init() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    private func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("a new file refuses one that holds something, and takes one that is missing or empty")
    func newFile() throws {
        let path = folder + "/log"
        try "kept\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: FileError(path: path, operation: "create", code: EEXIST)) { try FileWriter(path: path, mode: .new) }
        #expect(contents(path) == "kept\n")
        let fresh = try FileWriter(path: folder + "/fresh", mode: .new)
        try fresh.write("a\n")
        try fresh.close()
        #expect(contents(folder + "/fresh") == "a\n")
    }

    @Test("a replacement leaves the old file whole until it is closed, and as it was when dropped")
    func replace() throws {
        let path = folder + "/settings"
        try "old\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o640)
        let writer = try FileWriter(path: path, mode: .replace)
        try writer.write("new\n")
        #expect(contents(path) == "old\n")
        writer.discard()
        #expect(contents(path) == "old\n")
        try FileWriter.replace(path, with: "new\n")
        #expect(contents(path) == "new\n")
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o640, "a replaced file keeps its permissions")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["settings"], "nothing left beside it")
    }

    @Test("a replacement through a symbolic link replaces the file it names; the link stays")
    func symbolicLink() throws {
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
        try "old".write(toFile: folder + "/real/file", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "real/file")
        try FileWriter.replace(folder + "/link", with: "new")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/link") == "real/file")
        #expect(contents(folder + "/real/file") == "new")
    }

    @Test("a device is written in place, never replaced, and its failure is an error naming it")
    func device() throws {
        // Through a link: a writer that replaced what it writes would replace the link, not the device.
        let path = folder + "/full"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
        #expect(throws: FileError(path: path, operation: "write", code: ENOSPC)) {
            try FileWriter.replace(path, with: "x")
        }
        var info = stat()
        #expect(stat("/dev/full", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }
}
