/// A bad argument to a Swift function called from Lua, worded like `luaL_argerror`:
/// "bad argument #1 to 'dispatch' (table expected, got nil)".
///
/// A function's ``LuaArguments``, which knows the function's name, makes these errors:
///
/// ```swift
/// try arguments.expect(.table, at: 1)   // in flux.dispatch: bad argument #1 to 'dispatch' (table expected, got nil)
/// ```
public struct LuaArgumentError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The argument's position, from 1.
    public var position: Int32
    /// The function's name as scripts call it, when known.
    public var function: String?
    /// What is wrong: "table expected, got nil".
    public var problem: String

    /// The error for argument `position` of `function`.
    public init(_ position: Int32, function: String? = nil, _ problem: String) {
        self.position = position
        self.function = function
        self.problem = problem
    }

    /// "bad argument #1 to 'dispatch' (table expected, got nil)".
    public var description: String {
        "bad argument #\(position)" + (function.map { " to '\($0)'" } ?? "") + " (\(problem))"
    }
}
