import FluxTable

/// Workload 12: a live view's redraw of a 10,000-row table (10 sections of 1,000 rows) shown on a
/// 100 × 50 screen, after 1 row, 1% of the rows or all of them changed: the layout following the diff,
/// the lines on screen drawn, and the bytes the painter writes for the lines that differ. The diff
/// itself is workload 6's (the view's watch makes it, for `:watch` as for `:open`).
struct LiveViewWorkload {
    static let width = 100
    static let height = 50
    let options = RenderOptions(width: width, color: true, unicode: true)

    /// A change: which rows have a new detail.
    enum Change: CaseIterable {
        case oneRow, onePercent, everyRow

        var name: String {
            switch self {
            case .oneRow: "1 row changed"
            case .onePercent: "1% of rows changed"
            case .everyRow: "every row changed"
            }
        }

        func changes(section: Int, row: Int) -> Bool {
            switch self {
            case .oneRow: section == 0 && row == 10
            case .onePercent: row.isMultiple(of: 100)
            case .everyRow: true
            }
        }
    }

    static func model(_ change: Change?, round: Int) -> TableViewModel {
        TableViewModel(sections: (0 ..< 10).map { section in
            SectionModel(id: "section \(section)", headerTitle: "Section \(section)", headerHeight: 28,
                         cells: (0 ..< 1000).map { row in
                let changed = change?.changes(section: section, row: row) ?? false
                return CellViewModel(
                    id: "\(section)-\(row)", title: "Row \(row) of section \(section)",
                    detail: changed ? "changed \(row) in round \(round)" : "value \(row * 7)",
                    accessory: row.isMultiple(of: 2) ? .disclosure : .none, enabled: !row.isMultiple(of: 11))
            })
        })
    }

    /// Milliseconds per redraw and bytes written per redraw, over `repeats` redraws alternating
    /// between two models.
    func run(_ change: Change, repeats: Int) throws -> (milliseconds: Double, bytes: Int) {
        let models = [Self.model(change, round: 0), Self.model(change, round: 1)]
        let diffs = [diff(models[0], models[1]), diff(models[1], models[0])]
        var layout = TableLayout(models[0])
        var painter = ScreenPainter()
        let cursor = RowPath(section: 0, row: 3)
        func frame(_ model: TableViewModel) -> [ScreenLine] {
            (0 ..< Self.height).map { line in
                layout.draw(line: line, of: model, width: Self.width, options: options, cursor: cursor, choice: nil)
            }
        }
        _ = painter.paint(frame(models[0]), width: Self.width, height: Self.height)
        var bytes = 0
        let seconds = Measure.seconds {
            for index in 0 ..< repeats {
                let (old, new) = (models[index % 2], models[(index + 1) % 2])
                layout.update(from: old, to: new, diff: diffs[index % 2])
                bytes += painter.paint(frame(new), width: Self.width, height: Self.height).count
            }
        }
        guard bytes > 0 else { throw BenchmarkFailure("live-view: nothing was redrawn") }
        return (seconds * 1000 / Double(repeats), bytes / repeats)
    }

    /// Workload 12's figures: for each change, milliseconds per redraw (bytes written in the notes).
    static func figures(_ options: Options) throws -> [Figure] {
        progress("live-view: \(options.runs) runs")
        let workload = LiveViewWorkload()
        var figures: [Figure] = []
        for change in Change.allCases {
            _ = try workload.run(change, repeats: 20) // warm-up
            var times = Samples()
            var bytes = 0
            for _ in 0 ..< options.runs {
                let result = try workload.run(change, repeats: 200)
                times.add(result.milliseconds)
                bytes = result.bytes
            }
            figures.append(Figure(workload: "13 live view, 10×1,000 rows on 100×50", name: "redraw, " + change.name,
                                  samples: times, unit: "ms", notes: "\(bytes) bytes written"))
        }
        return figures
    }
}
