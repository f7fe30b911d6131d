import Foundation
import Testing
import FluxTable

@Suite("Table view model")
struct ModelSpec {
    private func decode(_ json: String) throws -> TableViewModel {
        try JSONDecoder().decode(TableViewModel.self, from: Data(json.utf8))
    }

    @Test("a Lua-shaped table with only titles decodes with every default filled in")
    func luaShapedDefaults() throws {
        let model = try decode(#"{"sections":[{"header":"Issues","height":28,"cells":[{"title":"Open"}]}]}"#)
        #expect(model == TableViewModel(sections: [
            SectionModel(headerTitle: "Issues", headerHeight: 28, cells: [CellViewModel(title: "Open")]),
        ]))
        let cell = try #require(model.sections.first?.cells.first)
        #expect(cell.id == "Open")
        #expect(cell.detail == nil)
        #expect(cell.accessory == .none)
        #expect(cell.enabled)
        #expect(!cell.selected)
        #expect(model.sections[0].id == "Issues")
    }

    @Test("every cell field decodes from its Lua key, the accessory from its name")
    func luaShapedFullCell() throws {
        let model = try decode("""
            {"sections":[{"id":"s","cells":[
              {"id":"c1","title":"Closed","detail":"340","accessory":"checkmark","enabled":false,"selected":true},
              {"title":"More","accessory":"disclosure"}
            ]}]}
            """)
        #expect(model.sections[0].cells == [
            CellViewModel(id: "c1", title: "Closed", detail: "340", accessory: .checkmark, enabled: false, selected: true),
            CellViewModel(title: "More", accessory: .disclosure),
        ])
    }

    @Test("headerTitle and headerHeight are accepted as aliases of header and height")
    func headerAliases() throws {
        let model = try decode(#"{"sections":[{"headerTitle":"Labels","headerHeight":44}]}"#)
        #expect(model.sections == [SectionModel(headerTitle: "Labels", headerHeight: 44)])
    }

    @Test("a table without sections, or a section without cells, decodes as empty")
    func missingCollections() throws {
        #expect(try decode("{}") == TableViewModel())
        #expect(try decode(#"{"sections":[{"header":"Empty"}]}"#).sections[0].cells.isEmpty)
    }

    @Test("sections without id or header are identified by position: section-0, section-1, …")
    func positionalSectionIDs() throws {
        let model = try decode(#"{"sections":[{"cells":[{"title":"a"}]},{"header":"Named"},{"cells":[]}]}"#)
        #expect(model.sections.map(\.id) == ["section-0", "Named", "section-2"])
        var built = TableViewModel(sections: [SectionModel(cells: [CellViewModel(title: "a")])])
        #expect(built.sections[0].id == "section-0")
        built.sections.append(SectionModel())
        #expect(built.sections.map(\.id) == ["section-0", "section-1"])
    }

    @Test("an explicit id wins over the title and the header")
    func explicitIDs() {
        #expect(CellViewModel(id: "issue-7", title: "Crash").id == "issue-7")
        #expect(SectionModel(id: "open", headerTitle: "Open issues").id == "open")
    }

    @Test("Codable round trip through JSON gives back an equal model")
    func jsonRoundTrip() throws {
        let model = TableViewModel(sections: [
            SectionModel(headerTitle: "Issues", headerHeight: 28, cells: [
                CellViewModel(title: "Open", detail: "12", accessory: .disclosure),
                CellViewModel(id: "x", title: "Ünïcödé 表示 😀", accessory: .checkmark, enabled: false, selected: true),
            ]),
            SectionModel(cells: [CellViewModel(title: "no header")]),
        ])
        let data = try JSONEncoder().encode(model)
        #expect(try JSONDecoder().decode(TableViewModel.self, from: data) == model)
    }

    @Test("the encoded form uses the Lua keys and leaves out absent optionals")
    func encodedKeys() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let model = TableViewModel(sections: [SectionModel(headerTitle: "A", cells: [CellViewModel(title: "t")])])
        let json = String(decoding: try encoder.encode(model), as: UTF8.self)
        #expect(json == #"{"sections":[{"cells":[{"accessory":"none","enabled":true,"id":"t","selected":false,"title":"t"}],"header":"A","id":"A"}]}"#)
    }

    @Test("duplicate cell ids in one section fail decoding with a message naming them")
    func duplicateCellIDsDecoding() throws {
        let json = #"{"sections":[{"header":"Issues","cells":[{"title":"Open"},{"title":"Open"},{"id":"x","title":"a"},{"id":"x","title":"b"},{"title":"Open"}]}]}"#
        do {
            _ = try decode(json)
            Issue.record("decoding succeeded")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription == "invalid cells: section 'Issues' has duplicate cell ids: 'Open', 'x'")
            #expect(context.underlyingError as? TableModelError == .duplicateCellIDs(section: "Issues", ids: ["Open", "x"]))
        }
    }

    @Test("the same cell id in two sections is allowed")
    func sameIDInTwoSections() throws {
        let model = try decode(#"{"sections":[{"header":"A","cells":[{"title":"x"}]},{"header":"B","cells":[{"title":"x"}]}]}"#)
        #expect(model.cellCount == 2)
    }

    @Test("validate() names duplicate section ids")
    func duplicateSectionIDs() {
        let model = TableViewModel(sections: [SectionModel(headerTitle: "A"), SectionModel(headerTitle: "A")])
        #expect(throws: TableModelError.duplicateSectionIDs(ids: ["A"])) { try model.validate() }
        #expect(TableModelError.duplicateSectionIDs(ids: ["A"]).description == "duplicate section ids: 'A'")
        #expect(throws: DecodingError.self) { try decode(#"{"sections":[{"header":"A"},{"id":"A"}]}"#) }
    }

    @Test("an unknown accessory name is an error listing the known ones")
    func unknownAccessory() {
        do {
            _ = try decode(#"{"sections":[{"cells":[{"title":"a","accessory":"tick"}]}]}"#)
            Issue.record("decoding succeeded")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription == "unknown accessory 'tick', expected one of 'none', 'checkmark', 'disclosure'")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("a cell without a title is an error")
    func missingTitle() {
        #expect(throws: DecodingError.self) { try decode(#"{"sections":[{"cells":[{"id":"a"}]}]}"#) }
    }
}
