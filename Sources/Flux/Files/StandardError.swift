import Foundation

/// Where messages nobody else takes end up: the defaults of the dispatcher's notes and follow-up errors,
/// and of a Lua host's reports and warnings.
package enum StandardError {
    /// Writes `line` and a newline to standard error; a write that fails is dropped (there is nowhere
    /// left to say so).
    package static func write(line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }
}
