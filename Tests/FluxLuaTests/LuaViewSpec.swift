import Flux
import FluxTable
import Testing
@testable import FluxLua

@Suite("Lua views, watched")
struct LuaViewSpec {
    let world = Harness()

    @Test("a Lua view over a Swift store → its render function sees each published state once, the watch its diff")
    func overSwiftStore() throws {
        try world.run(#"""
        counts = {}
        flux.view("count", {store = "tally", render = function(state)
          counts[#counts + 1] = state.count
          return {sections = {{header = "Count", cells = {{title = tostring(state.count)}}}}}
        end})
        """#)
        var titles: [String] = []
        let watch = try world.host.watch(view: "count") { _, _, new in
            titles.append(new.sections[0].cells[0].title)
        }
        try world.run(#"flux.dispatch("tally.add", {by = 2}); flux.dispatch("tally.add", {by = 3})"#)

        #expect(titles == ["2", "5"])
        #expect(try world.run("return table.concat(counts, ',')") == [.string("0,2,5")])
        #expect(world.reports.isEmpty)
        watch.cancel()
    }

    @Test("a Lua view over a Lua store → renders the table the store published")
    func overLuaStore() throws {
        try world.run(#"""
        flux.store{name = "names", state = {list = {}}, on = {
          ["names.add"] = function(state, action) state.list[#state.list + 1] = action.name end,
        }}
        flux.view("names", {store = "names", render = function(state)
          local cells = {}
          for i, name in ipairs(state.list) do cells[i] = {title = name} end
          return {sections = {{header = "Names", cells = cells}}}
        end})
        """#)
        var inserted: [[String]] = []
        let watch = try world.host.watch(view: "names") { diff, _, _ in
            inserted.append(diff.rowInserts.map(\.cell.title))
        }
        try world.run(#"flux.dispatch("names.add", {name = "ada"}); flux.dispatch("names.add", {name = "alan"})"#)

        #expect(inserted == [["ada"], ["alan"]])
        #expect(world.reports.isEmpty)
        watch.cancel()
    }

    @Test("a render function's table with a cell id or a section id twice is refused with the ids it repeats")
    func repeatedIDsNamed() throws {
        try world.run(#"""
        flux.view("cells", {store = "tally", render = function() return {sections = {{header = "h", cells = {{id = "a", title = "1"}, {id = "a", title = "2"}}}}} end})
        flux.view("sections", {store = "tally", render = function() return {sections = {{header = "h"}, {header = "h"}}} end})
        """#)
        // Both said only "invalid value": the decoding message kept only texts starting "invalid" or "expected".
        #expect(try world.run("return select(2, pcall(flux.render, 'cells'))")
            == [.string("field 'model.sections[1]': invalid cells: section 'h' has duplicate cell ids: 'a'")])
        #expect(try world.run("return select(2, pcall(flux.render, 'sections'))")
            == [.string("field 'model.sections': invalid sections: duplicate section ids: 'h'")])
    }
}
