/// The actions one undo step holds, as the devtools list them (`:history`, `:show`): kept by the history
/// itself as it records the step, so that no observer of every dispatch need keep them.
///
/// A step of one action holds it inline (recording it allocates nothing); a group keeps its first
/// ``kept`` actions and counts the rest. A step of no action (states set by a travel) holds none.
public struct StepActions {
    /// The most actions a step keeps, so that a group of a million actions costs no more.
    public static let kept = 100

    /// The first action, if any.
    public private(set) var first: (any Action)?
    /// The ones after it, up to ``kept`` in all.
    public private(set) var more: [any Action] = []
    /// How many actions the step holds (more than it keeps, for a large group).
    public private(set) var count = 0
    /// Whether the step is a group's (`flux.group`, `:group`), however many actions it holds.
    public internal(set) var isGroup = false

    /// No actions.
    public init() {}

    /// `actions`, of which `count` in all, kept as a step of a group or not.
    public init(_ actions: [any Action], count: Int, isGroup: Bool) {
        first = actions.first
        more = Array(actions.dropFirst().prefix(Self.kept - 1))
        self.count = max(count, actions.count)
        self.isGroup = isGroup
    }

    /// A step of the one action `action`, outside a group.
    init(single action: any Action) {
        first = action
        count = 1
    }

    /// Makes this the step of the one action `action`, outside a group, in place.
    mutating func setSingle(_ action: any Action) {
        first = action
        if !more.isEmpty { more = [] }
        count = 1
        isGroup = false
    }

    /// The kept actions, in order.
    public var all: [any Action] {
        guard let first else { return [] }
        return [first] + more
    }

    /// The step's only action, for a step of one action outside a group.
    public var single: (any Action)? { count == 1 && !isGroup ? first : nil }

    /// Adds an action the step ran.
    mutating func append(_ action: any Action) {
        if first == nil {
            first = action
        } else if more.count < Self.kept - 1 {
            more.append(action)
        }
        count += 1
    }

    /// Adds the actions of `later` (an inner group's).
    mutating func append(contentsOf later: StepActions) {
        for action in later.all { append(action) }
        count += later.count - later.all.count
    }
}
