import Flux
import FluxTable
import Testing
@testable import FluxLua

/// A Lua view's lazy sections (`{id, from, build}`): built again only when `from` changed.
@Suite("Lua views, sections kept from render to render")
struct LuaViewReuseSpec {
    let world = Harness()

    /// A store of three blocks of cells, and a view with a section per block that counts its builds.
    private func defineSheet() throws {
        try world.run(#"""
        flux.store{name = "sheet", state = {blocks = {{1, 2}, {3, 4}, {5, 6}}, title = "t"}, on = {
          ["sheet.set"] = function(state, action) state.blocks[action.block][action.row] = action.value end,
          ["sheet.title"] = function(state, action) state.title = action.title end,
        }}
        builds = {0, 0, 0}
        flux.view("sheet", {store = "sheet", render = function(state)
          local sections = {}
          for i, block in ipairs(state.blocks) do
            sections[i] = {id = "block " .. i, from = block, build = function(block)
              builds[i] = builds[i] + 1
              local cells = {}
              for row, value in ipairs(block) do cells[row] = {id = tostring(row), title = tostring(value)} end
              return {header = "Block " .. i, cells = cells}
            end}
          end
          return {sections = sections}
        end})
        """#)
    }

    @Test("a section whose `from` is unchanged is not built again; the one whose `from` changed is, and the diff shows its cell")
    func unchangedSectionReused() throws {
        try defineSheet()
        var updates: [[String]] = []
        let watch = try world.host.watch(view: "sheet") { diff, _, _ in updates.append(diff.rowUpdates.map(\.cell.title)) }
        #expect(try world.run("return table.concat(builds, ',')") == [.string("1,1,1")])

        try world.run(#"flux.dispatch("sheet.set", {block = 2, row = 1, value = 30})"#)
        #expect(try world.run("return table.concat(builds, ',')") == [.string("1,2,1")])
        #expect(updates == [["30"]])

        // A change outside every block's `from` builds nothing, and the model is the same.
        try world.run(#"flux.dispatch("sheet.title", {title = "u"})"#)
        #expect(try world.run("return table.concat(builds, ',')") == [.string("1,2,1")])
        #expect(updates == [["30"]])
        #expect(try world.host.views.model(of: "sheet").sections.map { $0.cells.map(\.title) } == [["1", "2"], ["30", "4"], ["5", "6"]])
        #expect(world.reports.isEmpty)
        watch.cancel()
    }

    @Test("`from` may be a version number; without `from` a section is built on every render")
    func versionAndNoFrom() throws {
        try world.run(#"""
        flux.store{name = "doc", state = {version = 1, text = "a"}, on = {
          ["doc.edit"] = function(state, action) state.text = action.text; if action.bump then state.version = state.version + 1 end end,
        }}
        built, always = 0, 0
        flux.view("doc", {store = "doc", render = function(state)
          return {sections = {
            {id = "text", from = state.version, build = function() built = built + 1; return {cells = {{title = state.text}}} end},
            {id = "live", build = function() always = always + 1; return {cells = {{title = state.text}}} end},
          }}
        end})
        """#)
        _ = try world.host.views.model(of: "doc")
        try world.run(#"flux.dispatch("doc.edit", {text = "b"})"#)
        let stale = try world.host.views.model(of: "doc")
        // The same version: the section built from it is kept, as declared; the one without `from` follows.
        #expect(stale.sections.map { $0.cells[0].title } == ["a", "b"])
        try world.run(#"flux.dispatch("doc.edit", {text = "c", bump = true})"#)
        let fresh = try world.host.views.model(of: "doc")
        #expect(fresh.sections.map { $0.cells[0].title } == ["c", "c"])
        #expect(try world.run("return built, always") == [.integer(2), .integer(3)])
    }

    @Test("a lazy section without an id, with fields beside build, or whose build returns no table is refused, naming it")
    func refusals() throws {
        try world.run(#"""
        flux.view("noid", {store = "tally", render = function() return {sections = {{from = 1, build = function() return {} end}}} end})
        flux.view("extra", {store = "tally", render = function() return {sections = {{}, {id = "b", header = "B", build = function() return {} end}}} end})
        flux.view("number", {store = "tally", render = function() return {sections = {{id = "b", build = function() return 4 end}}} end})
        flux.view("twice", {store = "tally", render = function()
          return {sections = {{id = "b", build = function() return {} end}, {id = "b", build = function() return {} end}}}
        end})
        """#)
        #expect(try world.run("return select(2, pcall(flux.render, 'noid'))")
            == [.string("field 'model.sections[1]': invalid section: a section with build needs an id (a string: the key its built cells are kept by)")])
        #expect(try world.run("return select(2, pcall(flux.render, 'extra'))")
            == [.string("field 'model.sections[2]': invalid section: a section with build holds only id, from and build (build returns the rest), got 'header'")])
        #expect(try world.run("return select(2, pcall(flux.render, 'number'))")
            == [.string("field 'model.sections[1]': expected build to return a table (the section), got number")])
        #expect(try world.run("return select(2, pcall(flux.render, 'twice'))")
            == [.string("field 'model.sections': invalid sections: duplicate section ids: 'b'")])
    }
}
