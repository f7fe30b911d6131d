import Flux
import FluxLua

extension Shell {
    /// Prepares the action monitor (on the dispatcher only while a log or watch is on) and adds the
    /// shell's own `flux` functions: `flux.log`, `flux.inspect` and `flux.print`.
    func installDevtools() {
        monitor.history = dispatcher.history
        // Weak: the dispatcher and the host may outlive the shell (an app keeps them).
        monitor.wantsStates = { [weak self] in self.map { $0.isLogging || !$0.watches.isEmpty } ?? false }
        monitor.wantsReports = { [weak self] in self?.isLogging ?? false }
        monitor.onReport = { [weak self] report in
            guard let self else { return }
            print(ActionText(host.renderOptions).entry(report))
        }
        updateMonitor()
        host.addFunction(named: "log") { [weak self] arguments in
            guard let self else { throw FluxHostError.closed }
            let lua = arguments.stack
            guard lua.top == 1, let on = lua.boolean(at: 1) else {
                throw arguments.error(1, "boolean expected, got \(lua.type(at: 1).name)")
            }
            isLogging = on
            return 0
        }
        host.addFunction(named: "inspect") { [weak self] arguments in
            guard let self else { throw FluxHostError.closed }
            let lua = arguments.stack
            guard lua.top == 1 else {
                throw arguments.error(lua.top == 0 ? 1 : 2, lua.top == 0 ? "value expected" : "one value expected, got \(lua.top)")
            }
            try call(pretty, on: lua)
            return 1
        }
        host.addFunction(named: "print") { [weak self] arguments in
            guard let self else { throw FluxHostError.closed }
            let lua = arguments.stack
            try call(show, on: lua)
            if let text = lua.string(at: -1) { print(text) }
            return 0
        }
    }

    /// Calls a prelude function on the arguments of the Swift function running, leaving its one result.
    private func call(_ function: LuaRef, on lua: LuaStack) throws {
        let count = lua.top
        try lua.ensureSpace(count + 1)
        lua.push(function)
        for index in stride(from: 1, through: count, by: 1) { lua.pushCopy(of: index) }
        try lua.pcall(arguments: count, results: 1)
    }

    /// Puts the action monitor among the dispatcher's middleware while `:log` or a watch needs the
    /// states before each action, and takes it out otherwise: an unwatched dispatch pays nothing for it.
    /// `:log`'s entries come from the stream of settled commits, read only while it is on.
    func updateMonitor() {
        if isLogging { monitor.startReports(on: dispatcher) } else { monitor.stopReports() }
        let wanted = isLogging || !watches.isEmpty
        let installed = dispatcher.middleware.contains { $0 === monitor }
        if wanted, !installed {
            dispatcher.middleware.append(monitor)
        } else if !wanted, installed {
            dispatcher.middleware.removeAll { $0 === monitor }
        }
    }
}
