import Foundation
import Testing

/// The unsafe idioms (`Unmanaged`, `_withUnsafeGuaranteedRef`, `unowned`, unchecked exclusivity) stay in
/// a few audited hot-path files: at most 8 files and 40 uses, each file's header naming the invariant it
/// relies on and the torture spec that fails if it breaks (ARCHITECTURE.md, "Where unsafe code lives").
@Suite("Unsafe code confined")
struct UnsafeConfinementSpec {
    /// The lines of each Swift file under Sources that use an unsafe idiom, by path.
    static func uses() throws -> [String: Int] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: #"Unmanaged|_withUnsafeGuaranteedRef|unowned|@exclusivity\(unchecked\)"#)
        var uses: [String: Int] = [:]
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            let count = text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
                pattern.firstMatch(in: String(line), range: NSRange(line.startIndex..., in: line)) != nil
            }.count
            if count > 0 { uses[file.path.replacingOccurrences(of: sources.path + "/", with: "")] = count }
        }
        return uses
    }

    @Test("at most 8 files and 40 uses")
    func budget() throws {
        let uses = try Self.uses()
        #expect(uses.count <= 8, "files: \(uses.keys.sorted())")
        #expect(uses.values.reduce(0, +) <= 40, "uses: \(uses.sorted { $0.key < $1.key })")
    }

    @Test("each file states its invariant and names the torture spec that guards it, and ARCHITECTURE.md lists it")
    func eachFileGuarded() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let architecture = try String(contentsOf: root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        for path in try Self.uses().keys {
            let text = try String(contentsOf: root.appendingPathComponent("Sources").appendingPathComponent(path), encoding: .utf8)
            #expect(text.contains("Where unsafe code lives") && text.contains("Invariant"), "\(path) states no invariant in its header")
            #expect(text.contains("LuaTortureSpec") || text.contains("SubscriberLifetimeSpec"), "\(path) names no torture spec")
            #expect(architecture.contains("Sources/" + path), "ARCHITECTURE.md does not list \(path)")
        }
    }
}
