import FluxTable

/// What a `flux.watch` function receives about one change of a view.
struct WatchSummary: Encodable {
    let text: String
    let inserted: Int
    let deleted: Int
    let updated: Int
    let moved: Int
    let sectionsInserted: Int
    let sectionsDeleted: Int
    let sectionsMoved: Int

    init(_ diff: TableDiff, text: String) {
        self.text = text
        inserted = diff.rowInserts.count
        deleted = diff.rowDeletes.count
        updated = diff.rowUpdates.count
        moved = diff.rowMoves.count
        sectionsInserted = diff.sectionInserts.count
        sectionsDeleted = diff.sectionDeletes.count
        sectionsMoved = diff.sectionMoves.count
    }

    enum CodingKeys: String, CodingKey {
        case text, inserted, deleted, updated, moved
        case sectionsInserted = "sections_inserted", sectionsDeleted = "sections_deleted", sectionsMoved = "sections_moved"
    }
}
