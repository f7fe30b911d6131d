/// What changed from one ``TableViewModel`` to another, as a table view's batch update applies it.
///
/// Sections are identified by ``SectionModel/id``, rows by ``CellViewModel/id`` (within a section, and
/// across sections for rows that move between them). A kept row whose other fields differ is updated.
///
/// Indices follow UIKit's `performBatchUpdates` rules, so a data source can hand them over unchanged:
/// - Deletes, and the `from` of moves and updates, count in the **old** model.
/// - Inserts, and the `to` of moves and updates, count in the **new** model.
/// - The rows of a deleted or inserted section are not listed; they go or come with their section. A
///   row never moves out of a deleted section or into an inserted one: it is deleted or inserted.
/// - Moves are the fewest that explain the new order; a row pushed along by inserts, deletes or other
///   moves is not a move. Rows that are not moved keep their relative order, and fill the places that
///   inserts and moves leave free. The same holds for sections.
/// - A row that moved and changed is listed in both ``rowMoves`` and ``rowUpdates``.
///
/// Every list is in ascending order of its old index (deletes) or new index (the rest).
///
/// Inserts and updates carry their new content, so ``TableViewModel/applying(_:)`` rebuilds the new
/// model from the old one and the diff alone.
///
/// ```swift
/// let next = viewProvider(state)
/// let changes = TableDiff(from: shown, to: next)
/// if !changes.isEmpty { print(PatchRenderer(options: .detect()).render(changes, from: shown, to: next)) }
/// ```
public struct TableDiff: Hashable, Sendable {
    /// Old indices of the sections only in the old model.
    public var sectionDeletes: [Int]
    /// The sections only in the new model, at their new indices.
    public var sectionInserts: [SectionInsert]
    /// The kept sections whose order changed.
    public var sectionMoves: [SectionMove]
    /// The kept sections whose header changed.
    public var sectionUpdates: [SectionUpdate]
    /// Old positions of the rows removed from kept sections.
    public var rowDeletes: [RowPath]
    /// The rows added to kept sections, at their new positions.
    public var rowInserts: [RowInsert]
    /// The kept rows whose order changed or that changed section.
    public var rowMoves: [RowMove]
    /// The kept rows whose content changed.
    public var rowUpdates: [RowUpdate]

    /// A diff made of the given changes; the default is the empty diff.
    public init(
        sectionDeletes: [Int] = [],
        sectionInserts: [SectionInsert] = [],
        sectionMoves: [SectionMove] = [],
        sectionUpdates: [SectionUpdate] = [],
        rowDeletes: [RowPath] = [],
        rowInserts: [RowInsert] = [],
        rowMoves: [RowMove] = [],
        rowUpdates: [RowUpdate] = []
    ) {
        self.sectionDeletes = sectionDeletes
        self.sectionInserts = sectionInserts
        self.sectionMoves = sectionMoves
        self.sectionUpdates = sectionUpdates
        self.rowDeletes = rowDeletes
        self.rowInserts = rowInserts
        self.rowMoves = rowMoves
        self.rowUpdates = rowUpdates
    }

    /// Whether the two models were equal.
    public var isEmpty: Bool {
        changeCount == 0
    }

    /// The number of listed changes of every kind.
    public var changeCount: Int {
        sectionDeletes.count + sectionInserts.count + sectionMoves.count + sectionUpdates.count
            + rowDeletes.count + rowInserts.count + rowMoves.count + rowUpdates.count
    }
}

/// The changes from `old` to `new`; the same as ``TableDiff/init(from:to:)``.
public func diff(_ old: TableViewModel, _ new: TableViewModel) -> TableDiff {
    TableDiff(from: old, to: new)
}
