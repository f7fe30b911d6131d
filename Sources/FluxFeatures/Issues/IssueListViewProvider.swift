import FluxTable

/// Maps an issue list to a table: the blueprint as the first header, then an "Open" and a "Closed"
/// section (always both, so the layout does not jump when one empties), one row per issue —
/// `#id title`, the assignee as detail — and, when the filter hides issues, a last dimmed row saying
/// how many, set apart.
///
/// Rows are identified by issue id, so renaming an issue updates its row and closing one moves it.
/// Choosing an issue closes it (`issues.close`, the same action on every row, so closing one is a
/// move and nothing else); the view's `o` key reopens it.
public enum IssueListViewProvider {
    /// The list a user sees: the issues that pass the annotation filter.
    public static func tableViewModel(for state: VisibleIssuesState) -> TableViewModel {
        list(blueprint: state.blueprint, issues: state.issues, hiddenCount: state.hiddenCount)
    }

    /// Every issue on the selected blueprint, unfiltered.
    public static func tableViewModel(for state: IssueState) -> TableViewModel {
        list(blueprint: state.blueprint, issues: state.issues, hiddenCount: 0)
    }

    private static func list(blueprint: Blueprint?, issues: [Issue], hiddenCount: Int) -> TableViewModel {
        guard let blueprint else {
            return TableViewModel(sections: [
                SectionModel(id: "blueprint", headerTitle: "Issues", cells: [
                    CellViewModel(id: "none", title: "No blueprint selected", enabled: false),
                ]),
            ])
        }
        var sections = [SectionModel(id: "blueprint", headerTitle: "\(blueprint.id) \(blueprint.title)")]
        for status in IssueStatus.allCases {
            sections.append(SectionModel(
                id: status.rawValue,
                headerTitle: status.title,
                headerHeight: 28,
                cells: issues.filter { $0.status == status }.map(cellViewModel)
            ))
        }
        if hiddenCount > 0 {
            let noun = hiddenCount == 1 ? "issue" : "issues"
            // Headerless but 28 points high, so the note stands apart from the closed issues.
            sections.append(SectionModel(id: "hidden", headerHeight: 28, cells: [
                CellViewModel(id: "hidden", title: "\(hiddenCount) \(noun) hidden by filters", enabled: false),
            ]))
        }
        return TableViewModel(sections: sections)
    }

    private static func cellViewModel(_ issue: Issue) -> CellViewModel {
        CellViewModel(
            id: String(issue.id),
            title: "#\(issue.id) \(issue.title)",
            detail: issue.assignee ?? "unassigned",
            accessory: .disclosure,
            action: IssueActions.CloseIssue.name,
            payload: ["id": .integer(issue.id)]
        )
    }
}
