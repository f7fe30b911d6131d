/// The position of a row: its section's index and its index within that section, both from 0.
///
/// Whether it counts in the old or the new model depends on where it appears; see ``TableDiff``.
public struct RowPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The row's index within the section.
    public var row: Int

    /// The row at `row` of section `section`.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// Top to bottom: by section, then by row.
    public static func < (lhs: RowPath, rhs: RowPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    /// `section.row`, for messages.
    public var description: String { "\(section).\(row)" }
}
