import FluxLua
import FluxTable

extension Shell {
    /// `:views`: each view and the store it renders.
    func listViews() {
        let names = host.views.names
        guard !names.isEmpty else { return print("no views") }
        let width = names.map(\.count).max() ?? 0
        print(names.map { name in
            let store = host.views.provider(named: name)?.store ?? "?"
            return name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + "renders " + store
        }.joined(separator: "\n"))
    }

    /// `:render view`.
    func render(_ view: String) throws {
        print(try host.render(view: view))
    }

    /// `:watch view`: after every change, the view's patch under what the action changed.
    func watch(_ view: String) throws {
        guard !watches.contains(view) else { throw ShellCommandError.failed("already watching '\(view)'") }
        let subscription = try host.watch(view: view) { [weak self] changes, old, new in
            guard let self else { return }
            print(watchHeading(for: view) + "\(view):\n" + PatchRenderer(options: host.renderOptions).render(changes, from: old, to: new))
        }
        watches.add(view, subscription)
        print("watching \(view): its changes print after every action")
    }

    /// `:unwatch [view]`: one view, or all.
    func unwatch(_ view: String?) throws {
        guard let view else {
            guard !watches.isEmpty else { return print("not watching any view") }
            print("stopped watching " + watches.removeAll().joined(separator: ", "))
            return
        }
        guard watches.remove(view) else {
            let watched = watches.isEmpty ? "none" : watches.views.joined(separator: ", ")
            throw ShellCommandError.failed("not watching '\(view)' (watching: \(watched))")
        }
        print("stopped watching \(view)")
    }
}
