/// A path's folder and last name, split on `/` as POSIX `dirname` and `basename` split it.
///
/// One place for this, because Foundation's `NSString.deletingLastPathComponent` traps on Linux for a
/// one-character path without a slash (`"t"`, `"-"`, `"é"`): a script, a folder or a plugin may be
/// named so. Trailing slashes are ignored, as the shell ignores them.
///
/// ```swift
/// PathParts.folder(of: "tests/t.lua")   // "tests"
/// PathParts.folder(of: "t")             // ""   (no folder: the working one)
/// PathParts.folder(of: "/etc")          // "/"
/// PathParts.name(of: "plugins/todo/")   // "todo"
/// ```
public enum PathParts {
    /// The folder that holds `path`: `""` when it names none (a bare name), `"/"` for a name at the root.
    public static func folder(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let folder = withoutTrailingSlashes(String(trimmed[..<slash]))
        return folder.isEmpty ? "/" : folder
    }

    /// The last name of `path` (`"/"` for the root itself, `""` for an empty path).
    public static func name(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard trimmed != "/" else { return "/" }
        return trimmed.lastIndex(of: "/").map { String(trimmed[trimmed.index(after: $0)...]) } ?? trimmed
    }

    /// `path` without slashes at its end, the root kept as `"/"`.
    private static func withoutTrailingSlashes(_ path: String) -> String {
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" { end = path.index(before: end) }
        if end == path.startIndex { return path.isEmpty ? "" : "/" }
        return String(path[..<end])
    }
}
