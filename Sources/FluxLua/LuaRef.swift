import CFluxLua
import CLua

/// A Lua value kept alive from Swift: a slot in the registry (`luaL_ref`), released when the ref is.
///
/// A ref outliving its VM is harmless: it then releases nothing. Push it with `LuaStack.push(_:)` or
/// call it with `LuaStack.call(_:arguments:)`.
///
/// ```swift
/// try vm.run("function double(x) return x * 2 end")
/// let double = vm.globalRef("double")
/// try vm.call(double, 21)  // [.integer(42)]
/// ```
public final class LuaRef {
    let control: LuaControl
    /// The registry index (`LUA_REFNIL` for nil).
    public let id: Int32

    /// [.., v] -> [..]
    init(popping stack: LuaStack) {
        control = LuaControl.of(stack.state)
        id = luaL_ref(stack.state, flux_registryindex())
    }

    deinit {
        // On the VM's main thread: refs are not Sendable, so this runs where the VM lives.
        if let state = control.state { luaL_unref(state, flux_registryindex(), id) }
    }
}

@available(*, unavailable, message: "a LuaRef belongs to its VM's thread")
extension LuaRef: Sendable {}

extension LuaStack {
    /// A ref to the value at `index`, which stays on the stack.
    public func ref(at index: Int32) -> LuaRef {
        pushCopy(of: index)
        return LuaRef(popping: self)
    }

    /// Makes `ref` hold the value at `index` (not nil) instead, in the same registry slot: no allocation.
    public func assign(_ ref: LuaRef, from index: Int32) {
        precondition(ref.control.block == flux_getcontrol(state), "a LuaRef was assigned on another VM's stack")
        precondition(ref.id != LUA_REFNIL && type(at: index) != .nil, "a LuaRef holding nil has no slot")
        pushCopy(of: index)
        lua_rawseti(state, flux_registryindex(), lua_Integer(ref.id))
    }

    /// [..] -> [.., v]. The value `ref` holds; `ref` must come from this stack's VM.
    public func push(_ ref: LuaRef) {
        precondition(ref.control.block == flux_getcontrol(state), "a LuaRef was pushed onto another VM's stack")
        lua_rawgeti(state, flux_registryindex(), lua_Integer(ref.id))
    }
}
