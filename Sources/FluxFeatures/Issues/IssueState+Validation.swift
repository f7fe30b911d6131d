import Flux

/// Issues read from outside must keep the store's rules: ids unique and below ``IssueState/nextIssueID``
/// (ids are never reused), blueprint ids unique, the selected blueprint one of them, and the query's
/// result the issues of the selected blueprint.
extension IssueState: ValidatedState {
    public func validate() throws {
        var ids = Set<Int>()
        for issue in allIssues where !ids.insert(issue.id).inserted {
            throw StateValidationError("two issues have the id \(issue.id)")
        }
        if let highest = ids.max(), highest >= nextIssueID {
            throw StateValidationError("nextIssueID is \(nextIssueID), yet issue \(highest) exists (ids are never reused)")
        }
        var blueprintIDs = Set<String>()
        for blueprint in blueprints where !blueprintIDs.insert(blueprint.id).inserted {
            throw StateValidationError("two blueprints have the id '\(blueprint.id)'")
        }
        if let selectedBlueprint, !blueprintIDs.contains(selectedBlueprint) {
            throw StateValidationError("the selected blueprint '\(selectedBlueprint)' is not one of the blueprints")
        }
        guard issues == allIssues.filter({ $0.blueprint == selectedBlueprint }) else {
            throw StateValidationError("'issues' is not the issues of the selected blueprint")
        }
    }
}
