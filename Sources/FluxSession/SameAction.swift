import Flux

/// Whether two actions are the same action with the same payload, decided without encoding either:
/// a type with no stored fields is equal to itself, an `Equatable` type is compared with `==`, and any
/// other type is never taken for the same (each is journalled on its own).
func sameAction(_ first: any Action, _ second: any Action) -> Bool {
    guard type(of: first) == type(of: second) else { return false }
    if hasNoFields(first) { return true }
    guard let first = first as? any Equatable else { return false }
    func equals<E: Equatable>(_ value: E, _ other: any Action) -> Bool { (other as? E) == value }
    return equals(first, second)
}

/// Whether the action's type has no stored fields: every value of it is the same action.
func hasNoFields(_ action: any Action) -> Bool {
    func size<A: Action>(_ action: A) -> Int { MemoryLayout<A>.size }
    return size(action) == 0
}
