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

/// The shortcut of a keyed Lua function (``LuaStack/push(function:keyedBy:fixedKeys:_:)``): called with the integer
/// its one string argument (at stack index 1, the integer at 2) is the key of. Returns as a ``LuaFunction`` does.
public typealias LuaKeyedFunction = (LuaStack, Int) throws -> Int32

/// The Swift side of a Lua function: the closure `flux_trampoline` reaches through its upvalue.
///
/// The upvalue is a userdata holding a retained pointer to the box, so the box lives exactly as long as
/// the Lua function; the userdata's `__gc` (`flux_box_gc`) releases it.
final class LuaFunctionBox {
    let body: LuaFunction
    /// The shortcut `flux_keyedtrampoline` calls, when the function is keyed (else `body`).
    let keyed: LuaKeyedFunction
    /// What a keyed body that is a C function (`FluxKeyedEntry`) is called with: kept as long as the function.
    let context: AnyObject?

    init(_ body: @escaping LuaFunction, keyed: LuaKeyedFunction? = nil, context: AnyObject? = nil) {
        self.body = body
        self.keyed = keyed ?? { stack, _ in try body(stack) }
        self.context = context
    }

    /// The entry point `flux_trampoline` calls (through `FluxControl.call`). Returns the result count, or
    /// a FLUX_RAISE value once the error is pushed: the trampoline raises it after Swift has returned.
    static func call(_ state: OpaquePointer, _ box: UnsafeMutableRawPointer) -> Int32 {
        return CContext.borrow(box, as: LuaFunctionBox.self) { run($0.body, on: LuaStack(state)) }
    }

    /// The entry point `flux_keyedtrampoline` calls with the integer the argument was the key of.
    @inline(__always)
    static func call(_ state: OpaquePointer, _ box: UnsafeMutableRawPointer, key: Int) -> Int32 {
        CContext.borrow(box, as: LuaFunctionBox.self) { function in
            let stack = LuaStack(state)
            do {
                return try checked(function.keyed(stack, key), on: stack)
            } catch {
                return stack.pushError(error)
            }
        }
    }

    private static func run(_ body: LuaFunction, on stack: LuaStack) -> Int32 {
        do {
            return try checked(body(stack), on: stack)
        } catch {
            return stack.pushError(error)
        }
    }

    /// `results`, or the error for a function that claims more results than it pushed (none needs no
    /// look at the stack).
    @inline(__always)
    private static func checked(_ results: Int32, on stack: LuaStack) -> Int32 {
        results == 0 || (results > 0 && results <= stack.top) ? results : miscounted(results, on: stack)
    }

    @inline(never)
    private static func miscounted(_ results: Int32, on stack: LuaStack) -> Int32 {
        stack.push("a Swift function returned \(results) results but pushed \(stack.top)")
        return FLUX_RAISE_WHERE
    }
}

extension LuaStack {
    /// [..] -> [.., function]. A Lua function that runs `body`.
    ///
    /// ```swift
    /// lua.push { lua in lua.push(Int(lua.top)); return 1 }  // a function returning its argument count
    /// ```
    public func push(function body: @escaping LuaFunction) {
        let box = CContext.retained(LuaFunctionBox(body))
        flux_pushswiftfunction(state, box)
    }

    /// [..] -> [.., function]. A Lua function that runs `body`, or `keyed` when it is called with one
    /// string argument that is a key of the table `keys` (raw access) with an integer value: the lookup is made
    /// in C, before Swift is entered. `keys` stays the function's, out of scripts' reach (the debug library
    /// reads no C function's upvalues); what is in it when the function is called decides, unless
    /// `fixedKeys`: a key once in `keys` stays there with its value (keys are only added), so the function
    /// answers the key it was last called with without looking it up.
    public func push(function body: @escaping LuaFunction, keyedBy keys: LuaRef, fixedKeys: Bool = false,
                     _ keyed: @escaping LuaKeyedFunction) {
        let box = CContext.retained(LuaFunctionBox(body, keyed: keyed))
        push(keys)
        flux_pushkeyedfunction(state, box, fixedKeys ? 1 : 0, nil, nil)
    }

    /// [..] -> [.., function]. ``push(function:keyedBy:fixedKeys:_:)`` with fixed keys and a keyed body that
    /// is a C function, called with `context` (kept as long as the function) and the integer, and returning
    /// as a ``LuaFunction``'s entry point does (a FLUX_RAISE value once the error is pushed): one call less.
    func push(function body: @escaping LuaFunction, keyedBy keys: LuaRef, entry: FluxKeyedEntry, context: AnyObject) {
        let box = CContext.retained(LuaFunctionBox(body, context: context))
        push(keys)
        flux_pushkeyedfunction(state, box, 1, entry, CContext.unretained(context))
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
