import Flux
import FluxLua
import FluxTable
import Foundation

/// Workload 17: a watched Lua view of 1,000,000 cells (1,000 sections of 1,000 rows over a Lua store)
/// after one cell of the store changed: the dispatch, the view's new model and its diff. The render
/// function builds every section each time, or declares lazy sections (`{id, from, build}`): then only
/// the section whose part of the state changed is built again, the others kept from the render before.
enum ViewReuse {
    static let sections = 1_000
    static let rows = 1_000

    /// The store and the view: every cell made by `cell(r, value)` in both forms, so they differ only in
    /// which sections are built.
    static func source(lazy: Bool) -> String {
        """
        local blocks = {}
        for b = 1, \(sections) do
          local block = {}
          for r = 1, \(rows) do block[r] = r end
          blocks[b] = block
        end
        flux.store{name = "sheet", state = {blocks = blocks}, on = {
          ["sheet.set"] = function(state, action) state.blocks[action.block][action.row] = action.value end,
        }}
        local function build(block)
          local cells = {}
          for r, value in ipairs(block) do cells[r] = {id = tostring(r), title = tostring(value)} end
          return {cells = cells}
        end
        flux.view("sheet", {store = "sheet", render = function(state)
          local sections = {}
          for i, block in ipairs(state.blocks) do
            \(lazy ? #"sections[i] = {id = "b" .. i, from = block, build = build}"#
                   : #"local section = build(block); section.id = "b" .. i; sections[i] = section"#)
          end
          return {sections = sections}
        end})
        """
    }

    /// The seconds one cell's change takes, on average over `changes` changes (each in another section).
    static func seconds(lazy: Bool, changes: Int) throws -> Double {
        let bench = LuaBench()
        try bench.host.run(source(lazy: lazy))
        var updated = 0
        let watch = try bench.host.watch(view: "sheet") { diff, _, _ in updated += diff.rowUpdates.count }
        defer { watch.cancel() }
        let loop = try bench.loop("""
            return function(n)
              for i = 1, n do flux.dispatch("sheet.set", {block = 1 + i % \(sections), row = 1, value = -i}) end
              return n
            end
            """, chunkName: "change")
        let (seconds, _) = try bench.time(loop, count: changes)
        guard updated == changes else { throw BenchmarkFailure("view-reuse: \(updated) rows updated after \(changes) changes") }
        return seconds / Double(changes)
    }

    static func figures(_ options: Options) throws -> [Figure] {
        progress("view-reuse: \(options.runs) runs")
        let workload = "17 view reuse"
        var full = Samples(), lazy = Samples()
        for _ in 0 ..< options.runs {
            full.add(try seconds(lazy: false, changes: 2) * 1000)
            lazy.add(try seconds(lazy: true, changes: 20) * 1000)
        }
        let ratio = full.median / max(lazy.median, 1e-9)
        return [
            Figure(workload: workload, name: "1M-cell view, 1 cell changed, built in full", samples: full, unit: "ms"),
            Figure(workload: workload, name: "… with lazy sections (id, from, build)", samples: lazy, unit: "ms",
                   notes: String(format: "%.0f× faster", ratio)),
        ]
    }
}
