import Flux

/// Every change the annotation filter list can ask for: this list is the feature's whole behaviour.
///
/// Payloads are plain ids, so scripts write them directly:
/// `annotationFilter.toggleFilter {filter = "issues.status"}`, `annotationFilter.enterFilterGroup {group = "issues"}`.
/// An unknown id is refused by the store, not by decoding, so its message can list the valid ids.
public enum AnnotationFilterActions {
    /// Turns a filter on or off. Payload: `{filter = "<filter id>"}` (see ``AnnotationFilterKind``).
    public struct ToggleFilter: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "annotationFilter.toggleFilter"
        /// The id of the filter to toggle.
        public let filter: String

        /// Toggles the filter with id `filter`.
        public init(filter: String) { self.filter = filter }
        /// Toggles the filter `kind`.
        public init(_ kind: AnnotationFilterKind) { self.filter = kind.rawValue }
    }

    /// Shows the details of a filter group. Payload: `{group = "<group id>"}` (see ``AnnotationFilterGroup``).
    public struct EnterFilterGroup: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "annotationFilter.enterFilterGroup"
        /// The id of the group to show.
        public let group: String

        /// Enters the group with id `group`.
        public init(group: String) { self.group = group }
        /// Enters `group`.
        public init(_ group: AnnotationFilterGroup) { self.group = group.rawValue }
    }

    /// Goes back from a group's details to the overview. No payload.
    public struct LeaveFilterGroup: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "annotationFilter.leaveFilterGroup"
        /// Leaves the group shown now.
        public init() {}
    }

    /// Turns every filter off. No payload.
    public struct ResetFilters: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "annotationFilter.resetFilters"
        /// Resets every group.
        public init() {}
    }

    /// Turns off every filter of one group. Payload: `{group = "<group id>"}`.
    public struct ResetFiltersInGroup: Action, Equatable, Sendable {
        /// The stable name scripts, logs and the shell use for this action.
        public static let name = "annotationFilter.resetFiltersInGroup"
        /// The id of the group to reset.
        public let group: String

        /// Resets the group with id `group`.
        public init(group: String) { self.group = group }
        /// Resets `group`.
        public init(_ group: AnnotationFilterGroup) { self.group = group.rawValue }
    }
}
