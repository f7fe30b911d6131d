import CFluxLua
import CLua

/// An error from Lua: a script that raised, did not compile, ran out of memory or was stopped.
///
/// The message and the traceback come separately, so a shell can print the message alone and keep the
/// traceback for a verbose mode. `description` joins them the way `lua.c` prints an error.
///
/// ```swift
/// do {
///     try vm.run("error('boom')", chunkName: "init.lua")
/// } catch let error as LuaError {
///     print(error.message)      // init.lua:1: boom
///     print(error.traceback!)   // stack traceback:\n\t[C]: in function 'error'…
/// }
/// ```
public struct LuaError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Why a call failed.
    public enum Kind: String, Sendable {
        /// The script raised an error (`error(…)`, a failed operation, an error from a Swift function).
        case runtime
        /// The chunk did not compile.
        case syntax
        /// The memory cap was reached (or the system ran out of memory).
        case memory
        /// `LuaVM.interrupt()` or `LuaVM.interruptAll()` stopped the call.
        case interrupted
        /// The call ran more instructions than `LuaVM.instructionBudget` allows.
        case budgetExceeded
        /// The error handler itself failed, for instance out of memory while building the traceback.
        case errorInHandler
    }

    /// Why the call failed.
    public var kind: Kind
    /// The error rendered as text, with the position Lua prefixed ("init.lua:3: boom"). An error object
    /// that is not a string is rendered through its `__tostring`, or as "(error object is a table value)".
    public var message: String
    /// "stack traceback:" and one line per frame, for runtime errors; nil for syntax and memory errors,
    /// which do not run the message handler.
    public var traceback: String?

    /// An error of `kind` with `message`.
    public init(kind: Kind = .runtime, message: String, traceback: String? = nil) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
    }

    /// The message, followed by the traceback when there is one.
    public var description: String {
        guard let traceback else { return message }
        return message + "\n" + traceback
    }
}

extension LuaError {
    /// [.., message] -> [..]. The error a failed `lua_pcall`/`lua_load` left on the stack.
    init(status: Int32, stop: Int32, popping stack: LuaStack) {
        let kind: Kind
        switch (status, stop) {
        case (_, FLUX_STOP_INTERRUPTED): kind = .interrupted
        case (_, FLUX_STOP_BUDGET): kind = .budgetExceeded
        case (LUA_ERRSYNTAX, _): kind = .syntax
        case (LUA_ERRMEM, _): kind = .memory
        case (LUA_ERRERR, _): kind = .errorInHandler
        default: kind = .runtime
        }
        let message = stack.string(at: -1) ?? "(error object is a \(stack.type(at: -1).name) value)"
        stack.pop()
        var traceback: String?
        if status == LUA_ERRRUN {
            flux_pushtraceback(stack.state) // [.., traceback or false]
            traceback = stack.string(at: -1)
            stack.pop()
        }
        self.init(kind: kind, message: message, traceback: traceback)
    }
}
