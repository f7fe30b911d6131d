import CFluxLua
import CLua
import Flux
import Foundation

/// A Lua 5.4 interpreter with the standard libraries, driven from Swift.
///
/// Everything that runs Lua code goes through a protected call: a Lua error never unwinds Swift frames,
/// it comes back as a thrown `LuaError` with a traceback. A runaway script is stopped by the instruction
/// budget or an interrupt; the memory cap makes allocation fail with "not enough memory". After any of
/// these the VM stays usable.
///
/// A VM is not thread-safe: use it from one thread. Only `interrupt()` (and `interruptHandle`) may be
/// used from elsewhere.
///
/// ```swift
/// let vm = LuaVM(memoryLimit: 64 << 20)
/// vm.instructionBudget = 10_000_000
/// vm.register("greet", in: "host") { lua in
///     let name = try lua.decode(String.self, at: 1, root: "name")
///     lua.push("hello, \(name)")
///     return 1
/// }
/// let results = try vm.run("return host.greet('lua')", chunkName: "example")  // [.string("hello, lua")]
/// ```
public final class LuaVM {
    /// The main thread's stack.
    public let stack: LuaStack
    let control: LuaControl

    /// A fresh state with the standard libraries open. `memoryLimit` caps the bytes Lua code may have
    /// allocated (nil: no cap). `collectsAtEveryAllocation` is the garbage-collection torture mode (see
    /// ``tortureRequested``): a whole collection cycle, finalizers included, after every allocating
    /// operation — slow, for tests that hunt lifetime bugs.
    public init(memoryLimit: Int? = nil, collectsAtEveryAllocation: Bool = LuaVM.tortureRequested) {
        control = LuaControl()
        let block = control.block
        block.pointee.torture = collectsAtEveryAllocation ? 1 : 0
        block.pointee.call = { state, box in LuaFunctionBox.call(state!, box!) }
        block.pointee.callkeyed = { state, box, key in LuaFunctionBox.call(state!, box!, key: Int(key)) }
        block.pointee.release = { box in CContext.release(box!) }
        block.pointee.warn = { block, message in
            let control = CContext.object(block!.pointee.owner, as: LuaControl.self)
            let text = String(cString: message!)
            if let warn = control.warn {
                warn(text)
            } else {
                StandardError.write(line: text)
            }
        }
        guard let state = flux_newstate(block) else {
            fatalError("not enough memory to create a Lua state")
        }
        stack = LuaStack(state)
        self.memoryLimit = memoryLimit
    }

    /// Whether the environment asks for the torture mode: `FLUX_GC_TORTURE` set (and not `0`). Under it
    /// every VM made with the default runs a full collection cycle at every GC check point after an
    /// allocation — Lua's own points after each allocating operation, where its `HARDMEMTESTS` build runs
    /// a full collection — so an unreachable object is gone, and its finalizer has run, by the end of the
    /// next allocation (`CFluxLua/torture.c` says exactly how).
    public static var tortureRequested: Bool { flux_torturerequested() != 0 }

    /// Whether this VM runs in the torture mode.
    public var collectsAtEveryAllocation: Bool { control.block.pointee.torture != 0 }

    deinit {
        // Finalizers run; a Swift function they call raises an error, and refs released from here on do
        // nothing.
        flux_closestate(control.block)
    }

    /// Where errors nobody can catch go: a finalizer (`__gc`) that fails, runs past its budget
    /// (`FLUX_FINALIZER_BUDGET` instructions, or the instruction budget when smaller) or is interrupted.
    /// Called during a collection, and while the state closes: it must not use this VM. Standard error
    /// when nil.
    public var onWarning: ((String) -> Void)? {
        get { control.warn }
        set { control.warn = newValue }
    }

    // MARK: Limits

    /// The most bytes the state may hold while Lua code runs; nil for no cap.
    ///
    /// The cap is enforced by the allocator, and only while Lua code runs: allocations made by Swift
    /// (pushing values, in Swift functions called from Lua) are never refused, because a refusal would
    /// raise a Lua error through Swift frames. Such allocations may take the state past the cap; Lua
    /// code then gets "not enough memory" at its next allocation that garbage collection cannot cover.
    public var memoryLimit: Int? {
        get { control.block.pointee.limit == 0 ? nil : Int(control.block.pointee.limit) }
        set { control.block.pointee.limit = newValue.map { max(1, $0) } ?? 0 }
    }

    /// The bytes the state holds now.
    public var usedMemory: Int {
        Int(control.block.pointee.used)
    }

    /// How many protected calls Swift has made into this state so far, the nested ones (from a Swift
    /// function Lua called) included: how often a path enters Lua, for specs.
    var protectedCalls: Int {
        Int(control.block.pointee.calls)
    }

    /// The most Lua instructions one call from Swift may run, nested calls included; nil for no limit.
    ///
    /// Counted by a `lua_sethook` count hook, set only while a budget is, so precise to within 1000
    /// instructions (without a budget Lua runs with no hook, at full speed). A script that
    /// catches the "instruction budget exceeded" error with `pcall` is stopped again at its next
    /// instruction. `debug.sethook` replaces the hook for the thread that calls it. Set during a call
    /// (from a Swift function), the new budget counts from that moment.
    public var instructionBudget: Int? {
        get { control.block.pointee.budget == 0 ? nil : Int(control.block.pointee.budget) }
        set { flux_setbudget(control.block, newValue.map { Int64(max(1, $0)) } ?? 0) }
    }

    /// Stops the call running now with an "interrupted" error; from any thread.
    ///
    /// A request made while no Lua code runs is forgotten when the next call starts.
    public func interrupt() {
        flux_interrupt(control.block)
    }

    /// A handle that interrupts this VM from any thread, and stays valid after the VM is gone.
    public var interruptHandle: LuaInterruptHandle {
        LuaInterruptHandle(control: control)
    }

    /// Stops the calls running now in every VM of the process. Async-signal-safe: meant for a SIGINT
    /// handler (`signal(SIGINT) { _ in LuaVM.interruptAll() }`). The C function is `flux_interrupt_all`.
    public static func interruptAll() {
        flux_interrupt_all()
    }

    // MARK: Running code

    /// Compiles `source` into a function without running it.
    public func load(_ source: String, chunkName: String) throws -> LuaRef {
        try stack.load(source, chunkName: chunkName)
        return LuaRef(popping: stack)
    }

    /// Runs `source` and returns what it returns.
    ///
    /// `chunkName` names the chunk in messages and tracebacks ("init.lua:3: boom").
    @discardableResult
    public func run(_ source: String, chunkName: String = "chunk") throws -> [LuaValue] {
        let base = stack.top
        defer { stack.top = base }
        try stack.load(source, chunkName: chunkName)
        try stack.pcall(arguments: 0)
        return stack.values(in: (base + 1) ..< (stack.top + 1))
    }

    /// Runs `source` and decodes its first result as `T` (a missing result is nil).
    public func run<T: Decodable>(_ source: String, chunkName: String = "chunk", as type: T.Type) throws -> T {
        let base = stack.top
        defer { stack.top = base }
        try stack.load(source, chunkName: chunkName)
        try stack.pcall(arguments: 0, results: 1)
        return try stack.decode(type, at: -1, root: "result")
    }

    /// Calls `function` with `arguments` encoded as Lua values and returns its results.
    ///
    /// Convenient, not fast: for hot calls use `call(_:results:arguments:read:)`, which allocates nothing.
    @discardableResult
    public func call(_ function: LuaRef, _ arguments: any Encodable...) throws -> [LuaValue] {
        try stack.call(function, arguments: { stack in
            try stack.ensureSpace(Int32(arguments.count))
            for argument in arguments { try stack.push(argument) }
        }, read: { stack, results in stack.values(in: results) })
    }

    /// Calls `function` with the arguments `arguments` pushes and hands its results to `read`.
    /// See `LuaStack.call(_:results:arguments:read:)`.
    public func call<Result>(
        _ function: LuaRef,
        results: Int32 = LUA_MULTRET,
        arguments: (LuaStack) throws -> Void = { _ in },
        read: (LuaStack, Range<Int32>) throws -> Result
    ) throws -> Result {
        try stack.call(function, results: results, arguments: arguments, read: read)
    }

    /// Calls `function` with the arguments `arguments` pushes, discarding its results.
    public func call(_ function: LuaRef, arguments: (LuaStack) throws -> Void) throws {
        try stack.call(function, arguments: arguments)
    }

    // MARK: Values

    /// [..] -> [.., value]. Pushes `value` encoded by `LuaEncoder`.
    public func push<T: Encodable>(_ value: T) throws {
        try stack.push(value)
    }

    /// Decodes the value at `index` as `T`; `root` names it in error paths ("state.filters[3].enabled").
    public func decode<T: Decodable>(_ type: T.Type, at index: Int32, root: String? = nil) throws -> T {
        try stack.decode(type, at: index, root: root)
    }

    /// The global `name` (raw access), converted to a `LuaValue`.
    public func global(_ name: String) -> LuaValue {
        stack.getGlobal(name)
        defer { stack.pop() }
        return stack.value(at: -1)
    }

    /// Sets the global `name` (raw access) to `value` encoded by `LuaEncoder`.
    public func setGlobal<T: Encodable>(_ name: String, to value: T) throws {
        try stack.push(value)
        stack.setGlobal(name)
    }

    /// A ref to the global `name` (raw access), for instance a function to call later.
    public func globalRef(_ name: String) -> LuaRef {
        stack.getGlobal(name)
        return LuaRef(popping: stack)
    }

    // MARK: Swift functions

    /// Makes `body` callable from Lua as `table.name`, or as the global `name` when `table` is nil.
    ///
    /// A missing `table` is created as a global and registered in `package.loaded`, so `require(table)`
    /// returns it.
    ///
    /// ```swift
    /// vm.register("now", in: "clock") { lua in lua.push(Double(clock())); return 1 }
    /// ```
    public func register(_ name: String, in table: String? = nil, _ body: @escaping LuaFunction) {
        register(name, in: table, pushing: { $0.push(function: body) })
    }

    /// Makes `body` callable from Lua as `table.name` (or the global `name`), with `keyed`'s shortcut for
    /// a call with one string argument found in `keys`: see ``LuaStack/push(function:keyedBy:fixedKeys:_:)``.
    public func register(_ name: String, in table: String? = nil, _ body: @escaping LuaFunction,
                         keyedBy keys: LuaRef, fixedKeys: Bool = false, _ keyed: @escaping LuaKeyedFunction) {
        register(name, in: table, pushing: { $0.push(function: body, keyedBy: keys, fixedKeys: fixedKeys, keyed) })
    }

    /// Makes `body` callable as `table.name`, with a keyed body that is a C function:
    /// ``LuaStack/push(function:keyedBy:entry:context:)``.
    func register(_ name: String, in table: String, _ body: @escaping LuaFunction, keyedBy keys: LuaRef,
                  entry: FluxKeyedEntry, context: AnyObject) {
        register(name, in: table, pushing: { $0.push(function: body, keyedBy: keys, entry: entry, context: context) })
    }

    /// Sets `table.name`, or the global `name`, to the function `pushFunction` pushes.
    private func register(_ name: String, in table: String?, pushing pushFunction: (LuaStack) -> Void) {
        let base = stack.top
        defer { stack.top = base }
        guard let table else {
            pushFunction(stack)
            stack.setGlobal(name)
            return
        }
        stack.pushModule(table)       // [.., module]
        pushFunction(stack)           // [.., module, function]
        stack.rawSet(name, in: -2)    // [.., module]
    }
}

@available(*, unavailable, message: "a LuaVM belongs to one thread; use interruptHandle from others")
extension LuaVM: Sendable {}

extension LuaStack {
    /// [..] -> [.., module]. The global table `name`, created (and put in `package.loaded`) when missing.
    public func pushModule(_ name: String) {
        if getGlobal(name) == .table { return }  // [.., module]
        pop()
        pushTable()                              // [.., module]
        pushCopy(of: -1)
        setGlobal(name)
        lua_getfield(state, flux_registryindex(), LUA_LOADED_TABLE) // [.., module, loaded]; registry has no metatable
        if type(at: -1) == .table {             // without the package library there is no `loaded`
            if rawGet(name, from: -1) == .nil {  // [.., module, loaded, loaded[name]]
                pop()
                pushCopy(of: -2)                 // [.., module, loaded, module]
                rawSet(name, in: -2)             // [.., module, loaded]
            } else {
                pop()                            // [.., module, loaded]
            }
        }
        pop()                                    // [.., module]
    }
}
