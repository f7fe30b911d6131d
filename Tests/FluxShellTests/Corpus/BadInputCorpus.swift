import Testing

/// The bad-input corpus: every case is given to a fresh shell, which must stay alive, report an error
/// that names what was wrong, and leave every store as the case's outcome says (as it was, for most).
@Suite("Bad-input corpus")
struct BadInputCorpus {
    @Test("flux.* arguments", arguments: Corpus.arguments)
    func arguments(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("unknown names", arguments: Corpus.names)
    func names(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("payloads that do not decode", arguments: Corpus.payloads)
    func payloads(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("odd values", arguments: Corpus.values)
    func values(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("failing callbacks", arguments: Corpus.callbacks)
    func callbacks(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("re-entrancy", arguments: Corpus.reentrancy)
    func reentrancy(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("runaway scripts", arguments: Corpus.runaway)
    func runaway(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("malformed commands", arguments: Corpus.commands)
    func commands(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("files that cannot be loaded or replayed", arguments: Corpus.files)
    func files(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("hostile scripts", arguments: Corpus.hostile)
    func hostile(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("lifetimes: callbacks that cancel, redefine and collect", arguments: Corpus.lifetime)
    func lifetime(_ badInput: BadInput) { CorpusRunner.check(badInput) }

    @Test("the corpus covers every category with at least 200 cases")
    func coverage() {
        let all = Corpus.all
        #expect(all.count >= 200)
        for category in BadInput.Category.allCases {
            #expect(all.contains { $0.category == category }, "no case for \(category)")
        }
        for badInput in all { #expect(!badInput.fragment.isEmpty, "\(badInput.testDescription): no fragment") }
    }
}

/// The cases, by category.
enum Corpus {
    static var all: [BadInput] {
        arguments + names + payloads + values + callbacks + reentrancy + runaway + commands + files + hostile + lifetime
    }
}
