/// The symbols renderers write, in Unicode or in ASCII for terminals whose locale is not UTF-8.
struct Marks {
    let checkmark: String
    let disclosure: String
    let selected: String
    let ellipsis: String
    let arrow: String
    let cursor: String

    init(unicode: Bool) {
        checkmark = unicode ? "✓" : "v"
        disclosure = unicode ? "›" : ">"
        selected = unicode ? "●" : "*"
        ellipsis = unicode ? "…" : "..."
        arrow = unicode ? "→" : "->"
        cursor = unicode ? "▸" : ">"
    }

    /// The mark for `accessory`, or nil for none.
    func mark(for accessory: CellAccessory) -> String? {
        switch accessory {
        case .none: nil
        case .checkmark: checkmark
        case .disclosure: disclosure
        }
    }
}
