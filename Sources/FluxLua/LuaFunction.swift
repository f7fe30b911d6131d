import CFluxLua
import CLua

/// A Swift function callable from Lua.
///
/// It finds its arguments at stack indices 1…`top`, pushes its results and returns how many it pushed.
/// A thrown error becomes a Lua error with the error's message (a `DecodingError` reads
/// "field 'action.type': expected a string, got nil"), prefixed with the caller's position like
/// `luaL_error`; a `LuaError` from a nested call is re-raised as it is. Lua's `pcall` catches either.
///
/// A Swift function cannot yield: calling `coroutine.yield` across it raises "attempt to yield across
/// a C-call boundary".
public typealias LuaFunction = (LuaStack) throws -> Int32

/// The Swift side of a Lua function: the closure `flux_trampoline` reaches through its upvalue.
///
/// The upvalue is a userdata holding a retained pointer to the box, so the box lives exactly as long as
/// the Lua function; the userdata's `__gc` (`flux_box_gc`) releases it.
final class LuaFunctionBox {
    let body: LuaFunction

    init(_ body: @escaping LuaFunction) {
        self.body = body
    }

    /// The entry point `flux_trampoline` calls (through `FluxControl.call`). Returns the result count, or
    /// a FLUX_RAISE value once the error is pushed: the trampoline raises it after Swift has returned.
    static func call(_ state: OpaquePointer, _ box: UnsafeMutableRawPointer) -> Int32 {
        let function = Unmanaged<LuaFunctionBox>.fromOpaque(box).takeUnretainedValue()
        let stack = LuaStack(state)
        do {
            let results = try function.body(stack)
            guard results >= 0, results <= stack.top else {
                stack.push("a Swift function returned \(results) results but pushed \(stack.top)")
                return FLUX_RAISE_WHERE
            }
            return results
        } catch {
            return stack.pushError(error)
        }
    }
}

extension LuaStack {
    /// [..] -> [.., function]. A Lua function that runs `body`.
    ///
    /// ```swift
    /// lua.push { lua in lua.push(Int(lua.top)); return 1 }  // a function returning its argument count
    /// ```
    public func push(function body: @escaping LuaFunction) {
        let box = Unmanaged.passRetained(LuaFunctionBox(body)).toOpaque()
        flux_pushswiftfunction(state, box)
    }

    /// [..] -> [.., message]. Pushes the Lua rendering of `error` and returns how the trampoline is to
    /// raise it.
    func pushError(_ error: any Error) -> Int32 {
        if lua_checkstack(state, 1) == 0 { top = 0 } // a failed function's own values can go
        switch error {
        case let error as LuaError:
            push(error.message)
            return FLUX_RAISE // already positioned by Lua
        case let error as DecodingError:
            push(error.fieldMessage)
        case let error as EncodingError:
            push(error.fieldMessage)
        default:
            push(String(describing: error))
        }
        return FLUX_RAISE_WHERE
    }
}
