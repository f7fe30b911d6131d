import Flux

/// Whether two actions are the same action with the same payload, decided without encoding either:
/// a type with no stored fields is equal to itself, an `Equatable` type is compared with `==`, and any
/// other type is never taken for the same (each is journalled on its own).
func sameAction(_ first: any Action, _ second: any Action) -> Bool {
    guard type(of: first) == type(of: second) else { return false }
    return sameness(of: first)(first, second)
}

/// How actions of `action`'s type are compared with ``sameAction(_:_:)``, given both are of that type:
/// found once per type (the cast to `Equatable` is a search of the type's conformances), then called
/// for each action of it.
func sameness(of action: any Action) -> (any Action, any Action) -> Bool {
    if hasNoFields(action) { return { _, _ in true } }
    guard let equatable = action as? any Equatable else { return { _, _ in false } }
    func comparing<E: Equatable>(_: E) -> (any Action, any Action) -> Bool {
        { first, second in
            // Both unwrapped, then `==` on E itself: comparing optionals would build their types' metadata at each call.
            guard let first = first as? E, let second = second as? E else { return false }
            return first == second
        }
    }
    return comparing(equatable)
}

/// Whether the action's type has no stored fields: every value of it is the same action.
func hasNoFields(_ action: any Action) -> Bool {
    func size<A: Action>(_ action: A) -> Int { MemoryLayout<A>.size }
    return size(action) == 0
}
