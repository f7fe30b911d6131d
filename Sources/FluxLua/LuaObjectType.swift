import CFluxLua
import CLua

/// A metamethod a Swift closure can implement for a `LuaObjectType`.
public enum LuaMetamethod: String, Sendable, CaseIterable {
    /// `object[key]`, for keys that are not methods; the key is at index 2.
    case index = "__index"
    /// `object[key] = value`; key at 2, value at 3.
    case newIndex = "__newindex"
    /// `#object`.
    case length = "__len"
    /// `tostring(object)`; must return a string.
    case toString = "__tostring"
    /// `pairs(object)`; returns an iterator function, a state and an initial value.
    case pairs = "__pairs"
    /// The end of a `local x <close> = object` scope; the error, if any, is at index 2.
    case close = "__close"
    /// `object(…)`; the arguments follow at 2….
    case call = "__call"
}

/// How instances of a Swift class appear in Lua: full userdata sharing one metatable whose methods
/// and metamethods are Swift closures. The metatable is hidden from scripts (`getmetatable` returns the
/// type's name), so none can change it, or call its `__gc` on something else. The userdata holds a strong reference to the object and drops
/// it when Lua collects the userdata (or the VM closes); the object's `deinit` is the finalizer.
///
/// Each closure receives the object the userdata at index 1 holds; a call on anything else fails with
/// "bad argument #1 to 'name' (Subscription expected, got table)".
///
/// ```swift
/// var subscription = LuaObjectType<Subscription>("flux.Subscription")
/// subscription.method("cancel") { lua, object in object.cancel(); return 0 }
/// subscription.metamethod(.close) { lua, object in object.cancel(); return 0 }
/// vm.stack.push(Subscription(…), as: subscription)  // local s <close> = …; s:cancel()
/// ```
public struct LuaObjectType<Object: AnyObject> {
    /// The metatable's name in the registry (`luaL_newmetatable`), also shown by `tostring`
    /// ("flux.Subscription: 0x…") unless `__tostring` is given.
    public let name: String
    /// `name` as a C string, made once: converting it on every push or check would allocate.
    let cName: ContiguousArray<CChar>
    private var methods: [(name: String, body: LuaFunction)] = []
    private var metamethods: [(event: LuaMetamethod, body: LuaFunction)] = []

    /// A type with no methods yet, registered under `name`, which must be unique to `Object`.
    public init(_ name: String) {
        self.name = name
        cName = name.utf8CString
    }

    /// Adds `object:name(…)`: `body` gets the object and finds the other arguments at 2….
    public mutating func method(_ name: String, _ body: @escaping (LuaStack, Object) throws -> Int32) {
        methods.append((name, bind(body, function: name)))
    }

    /// Implements `event` with `body`. An `.index` closure is consulted only for keys that are not
    /// methods.
    public mutating func metamethod(_ event: LuaMetamethod, _ body: @escaping (LuaStack, Object) throws -> Int32) {
        metamethods.append((event, bind(body, function: event.rawValue)))
    }

    /// `body` as a Lua function whose first argument must hold an `Object`.
    private func bind(_ body: @escaping (LuaStack, Object) throws -> Int32, function: String) -> LuaFunction {
        let name = name
        let cName = cName
        return { lua in
            guard let object = lua.object(at: 1, as: Object.self, named: cName) else {
                throw LuaArgumentError(1, function: function, "\(name) expected, got \(lua.type(at: 1).name)")
            }
            return try body(lua, object)
        }
    }

    /// [..] -> [..]. Creates (or refills) the metatable in the registry.
    func register(on stack: LuaStack) {
        let base = stack.top
        defer { stack.top = base }
        _ = name.withCString { luaL_newmetatable(stack.state, $0) } // [.., mt]
        flux_setboxgc(stack.state)                                  // mt.__gc releases the object
        flux_protectmetatable(stack.state, name)                    // getmetatable sees the name alone
        let index = metamethods.last { $0.event == .index }?.body
        if !methods.isEmpty {
            stack.pushTable(fieldCapacity: Int32(methods.count))    // [.., mt, methods]
            for method in methods {
                stack.push(function: method.body)
                stack.rawSet(method.name, in: -2)
            }
            stack.rawSet(index == nil ? "__index" : "__methods", in: -2) // [.., mt]
        }
        if let index {
            stack.push(function: methods.isEmpty ? index : { lua in
                // [object, key]: a method if there is one, else the Swift index.
                if lua.type(at: 2) == .string, lua.pushMetatable(of: 1) { // [object, key, mt]
                    lua.rawGet("__methods", from: -1)                      // [object, key, mt, methods]
                    lua.pushCopy(of: 2)
                    if lua.type(at: -2) == .table, lua.rawGet(from: -2) != .nil { return 1 }
                    lua.top = 2                                            // [object, key]
                }
                return try index(lua)
            })
            stack.rawSet(LuaMetamethod.index.rawValue, in: -2)
        }
        for metamethod in metamethods where metamethod.event != .index {
            stack.push(function: metamethod.body)
            stack.rawSet(metamethod.event.rawValue, in: -2)
        }
    }
}

extension LuaStack {
    /// Creates the metatable of `type`, replacing the functions of an earlier registration. Pushing an
    /// object registers its type when needed.
    public func register<Object>(_ type: LuaObjectType<Object>) {
        type.register(on: self)
    }

    /// [..] -> [.., userdata]. A userdata holding `object` (strongly, until Lua collects it).
    public func push<Object>(_ object: Object, as type: LuaObjectType<Object>) {
        flux_newbox(state, CContext.retained(object as AnyObject))     // [.., userdata]
        let pushMetatable = { type.cName.withUnsafeBufferPointer { flux_getmetatable(self.state, $0.baseAddress) } }
        if pushMetatable() != LUA_TTABLE {                               // [.., userdata, mt?]
            pop()
            type.register(on: self)
            _ = pushMetatable()
        }
        lua_setmetatable(state, -2)                                      // [.., userdata]
    }

    /// The object the userdata at `index` holds, when it is one of `type`'s.
    public func object<Object>(at index: Int32, as type: LuaObjectType<Object>) -> Object? {
        object(at: index, as: Object.self, named: type.cName)
    }

    /// The object the userdata at `index` holds, when its metatable is the one registered as `name`.
    func object<Object: AnyObject>(at index: Int32, as: Object.Type, named name: ContiguousArray<CChar>) -> Object? {
        guard name.withUnsafeBufferPointer({ luaL_testudata(state, index, $0.baseAddress) }) != nil, // never raises
              let box = flux_box(state, index)                                // nil once collected
        else { return nil }
        return CContext.object(box, as: Object.self)
    }
}

extension LuaVM {
    /// Creates the metatable of `type`; see `LuaStack.register(_:)`.
    public func register<Object>(_ type: LuaObjectType<Object>) {
        stack.register(type)
    }
}
