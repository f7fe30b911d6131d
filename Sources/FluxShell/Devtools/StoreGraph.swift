import Flux
import FluxLua
import FluxViews

/// The stores, what each waits for, which see every action (derived stores), and the views over
/// them: what `:graph` draws as a tree in the terminal or writes for Graphviz.
struct StoreGraph {
    struct Node {
        let name: String
        let owner: String
        let isDerived: Bool
        let waitsFor: [String]
        let views: [String]
    }

    let stores: [Node]
    /// The stores by name.
    private let nodes: [String: Node]
    /// Views whose store is not registered.
    let orphanViews: [(view: String, store: String)]

    init(dispatcher: Dispatcher, views: ViewRegistry) {
        let providers = views.names.compactMap { views.provider(named: $0) }
        stores = dispatcher.stores.map { store in
            let inspectable = store as? any InspectableStore
            return Node(name: store.name, owner: inspectable?.ownerName ?? "Swift", isDerived: store.handlesEveryAction,
                        waitsFor: inspectable?.waitsFor ?? [], views: providers.filter { $0.store == store.name }.map(\.name))
        }
        let nodes = Dictionary(stores.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.nodes = nodes
        orphanViews = providers.filter { nodes[$0.store] == nil }.map { ($0.name, $0.store) }
    }

    /// Why `store` cannot wait for `other` — no store has that name, or `other` waits for `store` in
    /// turn — or nil: what its actions will fail on, shown before any is dispatched.
    func problem(_ store: Node, waitingFor other: String, unicode: Bool) -> String? {
        guard nodes[other] != nil else { return "not a store: its actions fail" }
        // The shortest way from `other` back to `store`, if any, found breadth first.
        var parent: [String: String] = [:]
        var seen: Set<String> = [other]
        var queue = [other], head = 0
        while head < queue.count {
            let name = queue[head]
            head += 1
            if name == store.name {
                var path = [name], step = name
                while step != other, let up = parent[step] {
                    path.append(up)
                    step = up
                }
                return "a cycle: " + ([store.name] + path.reversed()).joined(separator: unicode ? " → " : " -> ")
            }
            for next in nodes[name]?.waitsFor ?? [] where !seen.contains(next) {
                seen.insert(next)
                parent[next] = name
                queue.append(next)
            }
        }
        return nil
    }

    /// A tree per store: its owner, whether it is derived, then what it waits for and its views.
    func text(unicode: Bool) -> String {
        guard !stores.isEmpty else { return "no stores" }
        let (branch, last) = unicode ? ("├─ ", "└─ ") : ("|- ", "`- ")
        var lines: [String] = []
        for store in stores {
            lines.append(store.name + "  (" + store.owner + (store.isDerived ? ", derived: sees every action" : "") + ")")
            let children = store.waitsFor.map { other in
                "waits for " + other + (problem(store, waitingFor: other, unicode: unicode).map { "  (\($0))" } ?? "")
            } + store.views.map { "view " + $0 }
            for (index, child) in children.enumerated() {
                lines.append("  " + (index == children.count - 1 ? last : branch) + child)
            }
        }
        for orphan in orphanViews { lines.append("view \(orphan.view)  (renders \(orphan.store), not a store)") }
        return lines.joined(separator: "\n")
    }

    /// The graph in Graphviz's language: stores as boxes (dashed when derived), views as ellipses,
    /// an edge from each store to those it waits for and from each view to its store.
    var dot: String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var lines = ["digraph flux {", "  rankdir=LR;"]
        for store in stores {
            lines.append("  \(quoted("store:" + store.name)) [label=\(quoted(store.name + " (" + store.owner + ")")), shape=box\(store.isDerived ? ", style=dashed" : "")];")
        }
        for store in stores {
            for other in store.waitsFor {
                // An edge its store's actions will fail on is red, labelled with why.
                let problem = problem(store, waitingFor: other, unicode: true)
                lines.append("  \(quoted("store:" + store.name)) -> \(quoted("store:" + other)) "
                    + (problem.map { "[label=\(quoted("wait_for: " + $0)), color=red];" } ?? "[label=\"wait_for\"];"))
            }
            for view in store.views {
                lines.append("  \(quoted("view:" + view)) [label=\(quoted(view)), shape=ellipse];")
                lines.append("  \(quoted("view:" + view)) -> \(quoted("store:" + store.name)) [label=\"renders\"];")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}

extension Shell {
    /// `:graph [--dot]`.
    func graph(_ arguments: CommandArguments) throws {
        let graph = StoreGraph(dispatcher: dispatcher, views: host.views)
        switch try arguments.optional() {
        case nil: print(graph.text(unicode: host.renderOptions.unicode))
        case "--dot": print(graph.dot)
        default: throw arguments.usage
        }
    }
}
