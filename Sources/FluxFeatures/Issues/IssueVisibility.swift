extension AnnotationFilterState {
    /// Whether the filters let `issue` be seen by `currentUser`.
    ///
    /// Filters of one group widen each other, groups narrow each other — as a user reads the list:
    /// "Photos" and "Issues" together show both types; "Open issues only" and "Assigned to me" together
    /// show open issues assigned to me. A group with no active filter does not filter. So:
    /// - hide everything hides every issue;
    /// - share status: issues are always shared with the team, so "Private" alone hides them;
    /// - general (annotation types): issues show when no type filter is on or the issue type filter is;
    /// - issues: "Open issues only" keeps open ones; "Assigned to me" and "Unassigned" keep the issues
    ///   matching either.
    public func shows(_ issue: Issue, currentUser: String) -> Bool {
        if hideEverythingFilter.enabled { return false }

        let shareStatus = activeFilters(in: .shareStatus)
        if !shareStatus.isEmpty, !shareStatus.contains(.shared) { return false }

        let types = activeFilters(in: .general)
        if !types.isEmpty, !types.contains(.issueType) { return false }

        if isEnabled(.issueStatus), issue.status != .open { return false }
        let byAssignee: [(AnnotationFilterKind, Bool)] = [
            (.issueAssignedToMe, issue.assignee == currentUser),
            (.issueUnassigned, issue.assignee == nil),
        ]
        let assigneeFilters = byAssignee.filter { isEnabled($0.0) }
        if !assigneeFilters.isEmpty, !assigneeFilters.contains(where: \.1) { return false }
        return true
    }
}
