import Testing
import FluxTable

@Suite("Table diff properties")
struct DiffPropertySpec {
    /// Checks the laws every diff obeys, naming the seed when one fails.
    private func check(_ old: TableViewModel, _ new: TableViewModel, seed: UInt64) throws {
        let changes = diff(old, new)
        #expect(try old.applying(changes) == new, "seed \(seed)")
        #expect(diff(new, new).isEmpty, "seed \(seed)")
        #expect(changes.isEmpty == (old == new), "seed \(seed)")
        // Updates are only for content that differs.
        for update in changes.rowUpdates {
            #expect(old.cell(at: update.from) != update.cell, "seed \(seed)")
        }
        // Identity: a row whose id is still in its (kept) section is never deleted and reinserted.
        guard (try? old.validate()) != nil, (try? new.validate()) != nil else { return }
        let newSections = Dictionary(uniqueKeysWithValues: new.sections.map { ($0.id, Set($0.cells.map(\.id))) })
        for path in changes.rowDeletes {
            let section = old.sections[path.section]
            let id = section.cells[path.row].id
            #expect(newSections[section.id]?.contains(id) == false, "seed \(seed): \(id) deleted from \(section.id)")
        }
        // Fewest moves: within each kept section, the rows that stayed there minus a longest run of them
        // in old order (found here the slow, obvious way).
        for (to, section) in new.sections.enumerated() {
            guard let from = old.sections.firstIndex(where: { $0.id == section.id }) else { continue }
            let oldRows = Dictionary(uniqueKeysWithValues: old.sections[from].cells.enumerated().map { ($1.id, $0) })
            let order = section.cells.compactMap { oldRows[$0.id] }
            var longest = [Int](repeating: 1, count: order.count)
            for i in order.indices {
                for j in 0..<i where order[j] < order[i] { longest[i] = max(longest[i], longest[j] + 1) }
            }
            let moves = changes.rowMoves.filter { $0.from.section == from && $0.to.section == to }.count
            #expect(moves == order.count - (longest.max() ?? 0), "seed \(seed): section \(section.id)")
        }
    }

    @Test("applying the diff of a model and its random edit to the model gives the edit (3,000 seeds)")
    func editedPairs() throws {
        for seed in UInt64(1)...3_000 {
            var random = RandomModels(seed: seed)
            let old = random.model()
            let new = random.edited(old)
            try check(old, new, seed: seed)
        }
    }

    @Test("applying the diff between two unrelated random models to the first gives the second (2,000 seeds)")
    func unrelatedPairs() throws {
        for seed in UInt64(10_001)...12_000 {
            var random = RandomModels(seed: seed)
            let old = random.model()
            let new = random.model()
            try check(old, new, seed: seed)
        }
    }

    @Test("diffs stay correct when ids repeat, though validate() rejects such models")
    func repeatedIDs() throws {
        for seed in UInt64(20_001)...20_500 {
            var random = RandomModels(seed: seed)
            var old = random.model()
            var new = random.edited(old)
            for model in [0, 1] where random.chance(70) {
                var sections = model == 0 ? old.sections : new.sections
                guard let index = sections.indices.randomElement(using: &random.rng),
                      let cell = sections[index].cells.randomElement(using: &random.rng) else { continue }
                sections[index].cells.insert(cell, at: Int.random(in: 0...sections[index].cells.count, using: &random.rng))
                if random.chance(30), let copy = sections.randomElement(using: &random.rng) {
                    sections.append(copy)
                }
                if model == 0 { old = TableViewModel(sections: sections) } else { new = TableViewModel(sections: sections) }
            }
            try check(old, new, seed: seed)
        }
    }
}
