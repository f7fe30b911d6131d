import FluxTable

/// A small seeded generator, so a failing random case reproduces from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random models drawn from small pools of ids, so that old and new share many sections and rows,
/// and random edits of them.
struct RandomModels {
    var rng: SplitMix64
    let headers = ["Inbox", "Today", "Later", "Done", "Archive", "Misc"]
    let cellIDs = (0..<30).map { "c\($0)" }

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
    }

    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &rng) < percent
    }

    mutating func cell(id: String) -> CellViewModel {
        let explicitTitle = chance(30)
        return CellViewModel(
            id: explicitTitle ? id : nil,
            title: explicitTitle ? ["Alpha", "Beta", id.uppercased()].randomElement(using: &rng)! : id,
            detail: [nil, "1", "2", "long detail"].randomElement(using: &rng)!,
            accessory: CellAccessory.allCases.randomElement(using: &rng)!,
            enabled: chance(85),
            selected: chance(10))
    }

    mutating func section(header: String?) -> SectionModel {
        let count = Int.random(in: 0...12, using: &rng)
        let ids = cellIDs.shuffled(using: &rng).prefix(count)
        var cells: [CellViewModel] = []
        for id in ids { cells.append(cell(id: id)) }
        return SectionModel(
            id: header == nil && chance(50) ? "anon-\(Int.random(in: 0..<4, using: &rng))" : nil,
            headerTitle: header,
            headerHeight: [nil, 0, 28, 44].randomElement(using: &rng)!,
            cells: cells)
    }

    mutating func model() -> TableViewModel {
        let named = headers.shuffled(using: &rng).prefix(Int.random(in: 0...5, using: &rng))
        var sections: [SectionModel] = []
        for header in named { sections.append(section(header: header)) }
        if chance(30) { sections.insert(section(header: nil), at: Int.random(in: 0...sections.count, using: &rng)) }
        return TableViewModel(sections: sections)
    }

    /// `model` after 1 to 8 random edits of every kind a diff can express.
    mutating func edited(_ model: TableViewModel) -> TableViewModel {
        var sections = model.sections
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            let nonEmpty = sections.indices.filter { !sections[$0].cells.isEmpty }
            switch Int.random(in: 0..<9, using: &rng) {
            case 0 where !sections.isEmpty:
                sections.remove(at: Int.random(in: sections.indices, using: &rng))
            case 1:
                let unused = headers.filter { header in !sections.contains { $0.id == header } }
                if let header = unused.randomElement(using: &rng) {
                    sections.insert(section(header: header), at: Int.random(in: 0...sections.count, using: &rng))
                }
            case 2 where !sections.isEmpty:
                let moved = sections.remove(at: Int.random(in: sections.indices, using: &rng))
                sections.insert(moved, at: Int.random(in: 0...sections.count, using: &rng))
            case 3 where !sections.isEmpty:
                let index = Int.random(in: sections.indices, using: &rng)
                sections[index].headerHeight = [nil, 0, 28, 44].randomElement(using: &rng)!
                if sections[index].id != sections[index].headerTitle {
                    sections[index].headerTitle = [nil, "Renamed", "Other"].randomElement(using: &rng)!
                }
            case 4 where !nonEmpty.isEmpty:
                let index = nonEmpty.randomElement(using: &rng)!
                sections[index].cells.remove(at: Int.random(in: sections[index].cells.indices, using: &rng))
            case 5 where !sections.isEmpty:
                let index = Int.random(in: sections.indices, using: &rng)
                let used = Set(sections[index].cells.map(\.id))
                if let id = cellIDs.filter({ !used.contains($0) }).randomElement(using: &rng) {
                    sections[index].cells.insert(cell(id: id), at: Int.random(in: 0...sections[index].cells.count, using: &rng))
                }
            case 6 where !nonEmpty.isEmpty:
                // A move, within the section or to another one that lacks the id.
                let from = nonEmpty.randomElement(using: &rng)!
                let row = Int.random(in: sections[from].cells.indices, using: &rng)
                let moving = sections[from].cells[row]
                let targets = sections.indices.filter { $0 == from || !sections[$0].cells.contains { $0.id == moving.id } }
                let to = targets.randomElement(using: &rng)!
                sections[from].cells.remove(at: row)
                sections[to].cells.insert(chance(30) ? cell(id: moving.id) : moving,
                                          at: Int.random(in: 0...sections[to].cells.count, using: &rng))
            case 7 where !nonEmpty.isEmpty:
                let index = nonEmpty.randomElement(using: &rng)!
                let row = Int.random(in: sections[index].cells.indices, using: &rng)
                sections[index].cells[row] = cell(id: sections[index].cells[row].id)
            case 8 where !nonEmpty.isEmpty:
                let index = nonEmpty.randomElement(using: &rng)!
                sections[index].cells.shuffle(using: &rng)
            default:
                break
            }
        }
        return TableViewModel(sections: sections)
    }
}
