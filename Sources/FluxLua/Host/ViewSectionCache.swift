import FluxTable

/// The sections a Lua view's render function builds lazily, kept from one render to the next, so that a
/// change of one part of a large state does not rebuild the whole table.
///
/// A section of the model may be declared as `{id = ID, from = VALUE, build = function(value) … end}`:
/// `build(VALUE)` returns the section (its `header`, `height` and `cells`). It is called only when the
/// section `ID` was not built in the last render from the same `from` (the same Lua value: `rawequal`, so
/// a part of a Lua store's state, which keeps its identity while unchanged, or a version number); otherwise
/// the section built then is used as it is, none of its cells made, decoded or checked again. A missing
/// `from` builds the section every time.
///
/// ```lua
/// flux.view("sheet", {store = "sheet", render = function(state)
///   local sections = {}
///   for i, block in ipairs(state.blocks) do
///     sections[i] = {id = "block " .. i, from = block, build = function(block)
///       local cells = {}
///       for r, value in ipairs(block) do cells[r] = {id = tostring(r), title = tostring(value)} end
///       return {header = "Block " .. i, cells = cells}
///     end}
///   end
///   return {sections = sections}
/// end})
/// ```
final class ViewSectionCache {
    /// A section built by `build`, with the `from` it was built from.
    private struct Entry {
        let from: LuaRef
        let section: SectionModel
    }

    /// The keys a section with `build` may hold.
    static let lazySectionFields: Set<String> = ["id", "from", "build"]

    /// The sections of the last render that had a `from`, by id.
    private var entries: [String: Entry] = [:]

    /// The table model at `index` (what a render function returned): its sections decoded, those with
    /// `build` built or reused. The stack is left as it was. A model that fails leaves the cache as it was.
    func model(at index: Int32, on lua: LuaStack) throws -> TableViewModel {
        let index = lua.absoluteIndex(index)
        let base = lua.top
        defer { lua.top = base }
        try lua.ensureSpace(8) // the list, a section, its build and from, a kept from or a call's
        // A model without a lazy section decodes as any table model does (its errors unchanged).
        guard lua.rawGet("sections", from: index) == .table, hasLazySection(at: lua.top, on: lua) else {
            lua.top = base
            return try lua.decode(TableViewModel.self, at: index, root: "model")
        }
        let list = lua.top
        let count = lua.rawLength(at: list)
        var sections: [SectionModel] = []
        sections.reserveCapacity(count)
        var kept: [String: Entry] = [:]
        for position in 1 ... count {
            let path: [any CodingKey] = [LuaCodingKey(stringValue: "model"), LuaCodingKey(stringValue: "sections"),
                                         LuaCodingKey(index: position - 1)]
            lua.top = list
            guard lua.rawGet(position, from: list) == .table, lua.rawGet("build", from: list + 1) == .function else {
                sections.append(try LuaValueDecoder.decode(SectionModel.self, at: list + 1, path: path, parent: nil,
                                                           stack: lua, options: LuaDecoder()))
                continue
            }
            let section = list + 1, build = list + 2
            let id = try lazySectionID(at: section, on: lua, path: path)
            lua.rawGet("from", from: section)
            let from = lua.top
            if !lua.isNil(at: from), let entry = entries[id] {
                lua.push(entry.from)
                if lua.rawEqual(from, -1) {
                    sections.append(entry.section)
                    kept[id] = entry
                    continue
                }
                lua.pop()
            }
            lua.pushCopy(of: build)
            lua.pushCopy(of: from)
            try lua.pcall(arguments: 1, results: 1)
            guard lua.type(at: -1) == .table else {
                throw DecodingError.typeMismatch(SectionModel.self, .init(
                    codingPath: path, debugDescription: "expected build to return a table (the section), got \(lua.type(at: -1).name)"))
            }
            var made = try LuaValueDecoder.decode(SectionModel.self, at: lua.top, path: path, parent: nil,
                                                  stack: lua, options: LuaDecoder())
            made.id = id
            sections.append(made)
            if !lua.isNil(at: from) { kept[id] = Entry(from: lua.ref(at: from), section: made) }
        }
        // Every section was checked as it was built: only the ids across sections are left to check.
        let model = TableViewModel(sections: sections)
        do {
            try model.validateSectionIDs()
        } catch let error as TableModelError {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [LuaCodingKey(stringValue: "model"), LuaCodingKey(stringValue: "sections")],
                debugDescription: "invalid sections: \(error)", underlyingError: error))
        }
        entries = kept
        return model
    }

    /// Whether a section of the list at `list` has a `build` function.
    private func hasLazySection(at list: Int32, on lua: LuaStack) -> Bool {
        let count = lua.rawLength(at: list)
        guard count > 0 else { return false }
        defer { lua.top = list }
        for position in 1 ... count {
            lua.top = list
            if lua.rawGet(position, from: list) == .table, lua.rawGet("build", from: list + 1) == .function { return true }
        }
        return false
    }

    /// The `id` of the lazy section at `section`: a string, the key its built cells are kept by; any key
    /// besides `id`, `from` and `build` is refused (`header` or `cells` beside `build` would be lost).
    private func lazySectionID(at section: Int32, on lua: LuaStack, path: [any CodingKey]) throws -> String {
        var unknown: [String] = []
        lua.forEachPair(in: section) {
            let key = lua.type(at: -2) == .string ? lua.string(at: -2) ?? "?" : "[\(lua.type(at: -2).name)]"
            if !Self.lazySectionFields.contains(key) { unknown.append(key) }
        }
        if let first = unknown.sorted().first {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription:
                "invalid section: a section with build holds only id, from and build (build returns the rest), got '\(first)'"))
        }
        let top = lua.top
        defer { lua.top = top }
        guard lua.rawGet("id", from: section) == .string, let id = lua.string(at: -1) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription:
                "invalid section: a section with build needs an id (a string: the key its built cells are kept by)"))
        }
        return id
    }
}
