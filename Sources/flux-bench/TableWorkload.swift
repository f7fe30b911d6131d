import FluxTable

/// Workload 6: diff and render of a 10,000-row table (10 sections of 1,000 rows) in which 1% of the
/// rows changed.
struct TableWorkload {
    /// The times of one run, each per operation.
    struct Times {
        var diff = 0.0
        var render = 0.0
        var patch = 0.0
    }

    static let sections = 10
    static let rowsPerSection = 1000
    /// Every hundredth row changes: 1%, spread over every section.
    static let changeEvery = 100

    let old = TableWorkload.model(changed: false)
    let new = TableWorkload.model(changed: true)
    /// Operations per run: a diff takes milliseconds, too short to time alone.
    let repeats: Int
    let options = RenderOptions(width: 80, color: false, unicode: true)

    /// The table; with `changed`, every hundredth row has a new detail and a check mark.
    static func model(changed: Bool) -> TableViewModel {
        TableViewModel(sections: (0 ..< sections).map { section in
            SectionModel(id: "section \(section)", headerTitle: "Section \(section)", headerHeight: 28,
                         cells: (0 ..< rowsPerSection).map { row in
                let isChanged = changed && row.isMultiple(of: changeEvery)
                return CellViewModel(
                    id: "\(section)-\(row)",
                    title: "Row \(row) of section \(section)",
                    detail: isChanged ? "changed \(row)" : "value \(row * 7)",
                    accessory: isChanged ? .checkmark : (row.isMultiple(of: 2) ? .disclosure : .none),
                    enabled: !row.isMultiple(of: 11),
                    selected: row == 3
                )
            })
        })
    }

    /// Times the diff, the render of the new table and the patch render, `repeats` of each.
    func run() throws -> Times {
        var times = Times()
        var changes = TableDiff()
        times.diff = Measure.seconds {
            for _ in 0 ..< repeats { changes = diff(old, new) }
        } / Double(repeats)
        let expected = Self.sections * Self.rowsPerSection / Self.changeEvery
        guard changes.rowUpdates.count == expected, changes.changeCount == expected else {
            throw BenchmarkFailure("table: the diff lists \(changes.changeCount) changes, expected \(expected) updates")
        }

        var length = 0
        let renderer = TableRenderer(options: options)
        times.render = Measure.seconds {
            for _ in 0 ..< repeats { length &+= renderer.render(new).utf8.count }
        } / Double(repeats)

        let patcher = PatchRenderer(options: options)
        times.patch = Measure.seconds {
            for _ in 0 ..< repeats { length &+= patcher.render(changes, from: old, to: new).utf8.count }
        } / Double(repeats)
        guard length > 0 else { throw BenchmarkFailure("table: nothing was rendered") }
        return times
    }
}

extension TableWorkload {
    /// Workload 6's figures: milliseconds per diff, per render of the whole table, per patch render.
    static func figures(_ options: Options) throws -> [Figure] {
        progress("table: \(options.runs) runs")
        let table = TableWorkload(repeats: 5)
        _ = try table.run() // warm-up
        var diffs = Samples(), renders = Samples(), patches = Samples()
        for _ in 0 ..< options.runs {
            let times = try table.run()
            diffs.add(times.diff * 1000)
            renders.add(times.render * 1000)
            patches.add(times.patch * 1000)
        }
        let changed = sections * rowsPerSection / changeEvery
        let workload = "6 FluxTable, 10×1,000 rows"
        return [
            Figure(workload: workload, name: "diff, 1% of rows changed", samples: diffs, unit: "ms", notes: "\(changed) updates"),
            Figure(workload: workload, name: "render, whole table", samples: renders, unit: "ms",
                   notes: "80 columns, Unicode, no colour"),
            Figure(workload: workload, name: "patch render", samples: patches, unit: "ms", notes: "\(changed) lines"),
        ]
    }
}
