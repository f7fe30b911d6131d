import Flux

extension LuaArguments {
    /// Refuses a table argument with a key its function does not read, so a misspelled field fails at
    /// once instead of being left out silently: `bad argument #1 to 'store' (unknown field 'stat': did
    /// you mean 'state'? (fields: actions, name, on, state, wait_for))`.
    ///
    /// - Parameters:
    ///   - position: The argument, a table.
    ///   - allowed: The fields the function reads.
    public func rejectUnknownKeys(at position: Int32, allowed: [String]) throws(LuaArgumentError) {
        var unknown: [String] = []
        stack.forEachPair(in: position) {       // [.., key, value]
            if stack.type(at: -2) == .string, let key = stack.string(at: -2) {
                if !allowed.contains(key) { unknown.append("'\(key)'") }
            } else {
                // Not `string(at:)`: converting a number key in place would break `next`.
                unknown.append("a \(stack.type(at: -2).name) key")
            }
        }
        guard let first = unknown.min() else { return }
        let name = first.hasPrefix("'") ? String(first.dropFirst().dropLast()) : ""
        let hint = NameSuggestion.didYouMean(name, in: allowed).map { ": " + $0 } ?? ""
        throw error(position, "unknown field \(first)\(hint) (fields: \(allowed.sorted().joined(separator: ", ")))")
    }
}
