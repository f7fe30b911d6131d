import Flux
import FluxLua

extension Shell {
    /// `:stores`.
    func listStores() {
        let stores = dispatcher.stores
        guard !stores.isEmpty else { return print("no stores") }
        print(stores.map(\.name).joined(separator: "\n"))
    }

    /// `:state [store]`: one store's state, or every store's.
    func printState(_ name: String?) throws {
        if let name { return print(try stateText(of: name)) }
        let stores = dispatcher.stores
        guard !stores.isEmpty else { return print("no stores") }
        print(try stores.map { "\($0.name) = \(try stateText(of: $0.name))" }.joined(separator: "\n"))
    }

    /// `:actions [store]`: the actions with their payload fields.
    func listActions(_ store: String?) throws {
        let names = try store.map { try host.store(named: $0).actionNames } ?? dispatcher.registry.names
        guard !names.isEmpty else { return print("no actions") }
        print(names.sorted().map { name in
            host.payloadFields(of: name).flatMap { $0.fields.isEmpty ? nil : name + " " + $0.description } ?? name
        }.joined(separator: "\n"))
    }

    /// `:dispatch name [payload]`: Lua evaluates the payload's text; the action goes to the dispatcher
    /// from Swift.
    func dispatch(_ name: String, payload: String) throws {
        do {
            try host.dispatch(actionNamed: name, payloadSource: payload)
        } catch let error as LuaError where error.kind == .syntax {
            throw ShellCommandError.failed("payload is not a Lua value: \(error.message)")
        } catch let error as LuaError {
            throw error
        } catch {
            // One line, as `flux.dispatch` words it: a Lua store handler's traceback stays out.
            throw ShellCommandError.failed(String(describing: error))
        }
    }
}
