import Foundation

/// A temporary folder of plugin files for a spec, removed when the spec ends.
final class PluginFolder {
    let path: String

    init(_ label: String = "plugins") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` inside the folder, making its folders.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let full = self[name]
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
        return full
    }

    subscript(name: String) -> String { (path as NSString).appendingPathComponent(name) }
}
