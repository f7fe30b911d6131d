import Flux
import Testing
@testable import FluxLua

/// Names that look the same are the same name; bytes that are not text are no name; payload keys that
/// Lua tells apart are never merged.
@Suite("Names and payload keys")
struct NameSpec {
    let world = Harness()

    @Test("a store named in NFD is the store named in NFC: one store, found by either spelling; defined again by the other spelling, refused")
    func composedAndDecomposed() throws {
        try world.run("""
            flux.store{name = 'caf\\u{E9}', state = {n = 0}, on = {['caf\\u{E9}.add'] = function(s) s.n = s.n + 1 return s end}}
            """)
        #expect(world.error("""
            flux.store{name = 'cafe\\u{301}', state = {n = 100}, on = {['cafe\\u{301}.add'] = function(s) s.n = s.n + 10 return s end}}
            """).contains("is the same name in another Unicode form"))
        #expect(world.dispatcher.stores.filter { $0.name.hasPrefix("caf") }.count == 1)
        try world.run("flux.dispatch('cafe\\u{301}.add')")
        #expect(try world.run("return flux.state('caf\\u{E9}').n") == [.integer(1)])
        #expect(try world.run("return flux.stores()[#flux.stores()]") == [.string("caf\u{E9}")])
        #expect(Array("caf\u{E9}".utf8) == [0x63, 0x61, 0x66, 0xC3, 0xA9], "kept composed")
    }

    @Test("an `on` table naming one action in two Unicode forms is refused, and no store is made")
    func duplicateHandler() {
        let message = world.error("""
            flux.store{name = 'twice', on = {['a\\u{E9}'] = function() end, ['ae\\u{301}'] = function() end}}
            """)
        #expect(message.contains("names action 'a\u{E9}' twice"))
        #expect(world.dispatcher.store(named: "twice") == nil)
    }

    @Test("names that are not valid UTF-8 are refused, so two of them cannot collide")
    func invalidUTF8() {
        #expect(world.error("flux.store{name = 'bad\\xFF', state = {}}").contains(#"name "bad\xFF" is not valid UTF-8"#))
        #expect(world.error("flux.dispatch('x\\xFE')").contains(#"name "x\xFE" is not valid UTF-8"#))
        #expect(world.error("flux.state('s\\xFF')").contains("not valid UTF-8"))
        #expect(world.dispatcher.stores.map(\.name) == ["tally"])
    }

    @Test("a Swift store's payload with dictionaries still decodes from a Lua table, integer keys included")
    func swiftDictionaryPayload() throws {
        struct Scores: Action {
            static let name = "scores.set"
            var byName: [String: Int]
            var byRound: [Int: String]
        }
        let scores = Store<[String]>(name: "scores", state: [], dispatcher: world.dispatcher)
        scores.on(Scores.self) { state, action in
            state = action.byName.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                + action.byRound.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }
        }
        try world.run("flux.dispatch('scores.set', {byName = {ann = 3, bo = 1}, byRound = {[10] = 'ann', [2] = 'bo'}})")
        #expect(scores.state == ["ann=3", "bo=1", "2:bo", "10:ann"])
    }

    @Test("a payload whose keys collide ([1] and [\"1\"]) is refused with the path; the store is unchanged")
    func collidingKeys() throws {
        try world.run("""
            flux.store{name = 'notes', state = {last = {}}, on = {['notes.put'] = function(s, p) s.last = p.t return s end}}
            """)
        let message = world.error("flux.dispatch('notes.put', {t = {[1] = 'a', ['1'] = 'b'}})")
        #expect(message.contains("field 't.1'"), "the path: \(message)")
        #expect(message.contains(#"two keys of the table read as "1""#))
        let forms = world.error("flux.dispatch('notes.put', {t = {['\\u{E9}'] = 1, ['e\\u{301}'] = 2}})")
        #expect(forms.contains("two keys of the table read as"))
        #expect(try world.run("return next(flux.state('notes').last)") == [.nil])
    }
}
