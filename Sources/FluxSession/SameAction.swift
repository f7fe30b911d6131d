import Flux

/// The last action a journal run holds, kept as its own type, to tell whether the next one is the same
/// action with the same payload — decided without encoding either: a type with no stored fields is
/// equal to itself, an `Equatable` type is compared with `==`, and any other type is never taken for
/// the same (each is journalled on its own).
///
/// Made once per type (the cast to `Equatable` is a search of the type's conformances), then asked
/// for each action: the action is opened as its own type and compared with the last one held as that
/// type, with no search and no cast through an existential.
class SameAction {
    /// What ``take(_:)`` found.
    enum Outcome {
        /// The same as the last action.
        case same
        /// Of the same type, not the same (it is now the last action).
        case different
        /// Of another type: a new ``SameAction`` holds it (``holding(_:)``).
        case otherType
    }

    /// Compares `action` with the last one and keeps it as the last.
    func take(_ action: any Action) -> Outcome { .otherType }

    /// One holding `action`.
    static func holding(_ action: any Action) -> SameAction {
        if hasNoFields(action) { return ByType(action, always: .same) }
        guard let equatable = action as? any Equatable else { return ByType(action, always: .different) }
        func holding<E: Equatable>(_ value: E) -> SameAction { Compared(value) }
        return holding(equatable)
    }

    /// Actions of a type whose sameness needs no comparison: without stored fields, every one is the
    /// same; not `Equatable`, none is.
    private final class ByType: SameAction {
        let type: any Action.Type
        /// What an action of `type` always is.
        let outcome: Outcome

        init(_ action: any Action, always outcome: Outcome) {
            type = Swift.type(of: action)
            self.outcome = outcome
        }

        override func take(_ action: any Action) -> Outcome {
            isOf(type, action) ? outcome : .otherType
        }
    }

    /// Actions of an `Equatable` type `E`, the last one held as an `E`.
    private final class Compared<E: Equatable>: SameAction {
        var last: E

        init(_ last: E) {
            self.last = last
        }

        override func take(_ action: any Action) -> Outcome {
            take(opened: action)
        }

        private func take<A: Action>(opened action: A) -> Outcome {
            guard A.self == E.self else { return .otherType }
            // Of type E, checked above: the cast is a copy, and cannot fail.
            return keep(action as! E, in: &last) ? .same : .different
        }

        /// Whether `value` equals `last`; `last` becomes it when not. One access to `last`, not two.
        private func keep(_ value: E, in last: inout E) -> Bool {
            if value == last { return true }
            last = value
            return false
        }
    }
}

/// Whether `action` is of type `type` (opened, its type is at hand: no call to find it).
private func isOf<A: Action>(_ type: any Action.Type, _: A) -> Bool {
    A.self == type
}

/// Whether the action's type has no stored fields: every value of it is the same action.
func hasNoFields(_ action: any Action) -> Bool {
    func size<A: Action>(_ action: A) -> Int { MemoryLayout<A>.size }
    return size(action) == 0
}
