import Testing

/// `flux.outbox` and `:outbox` as a user types them, on the virtual clock: bad declarations refused with a
/// suggestion and nothing declared; `send`'s errors and second replies; the compensation's payload; the
/// steering commands.
@Suite("Outbox from Lua", .serialized)
struct OutboxLuaSpec {
    /// A shell with a notes store and the outbox `sync`, whose `send` answers from the list `answers`
    /// (`"boom"` raises an error) and keeps what it was given in `sent`.
    func shell() -> EffectsTranscript {
        let t = EffectsTranscript()
        t.type(#"""
        flux.store{name = "notes", state = {items = {}, refused = {}}, on = {
          ["notes.add"] = function(s, a) s.items[#s.items + 1] = a.text; return s end,
          ["notes.refused"] = function(s, a)
            s.refused[#s.refused + 1] = a.entry.id .. " " .. a.entry.action .. " " .. a.entry.payload.text .. ": " .. a.reason
            return s
          end,
        }}
        sent, answers = {}, {}
        flux.outbox{name = "sync", actions = {"notes.add"}, rejected = "notes.refused", retry = {first_ms = 100, max_ms = 1000},
          send = function(entry, reply)
            sent[#sent + 1] = entry.id .. ":" .. entry.payload.text .. "#" .. entry.attempt .. " " .. entry.json
            local answer = table.remove(answers, 1) or "ok"
            if answer == "boom" then error("no route to host") end
            reply(answer, "because")
          end}
        """#)
        return t
    }

    @Test("a declaration with an unknown field, an unknown action or a bad retry is refused with the fix, and declares nothing")
    func refusals() {
        let t = shell()
        let cases = [
            (#"flux.outbox{name = "x", actions = {"notes.add"}, send = print, retyr = {}}"#, "unknown field 'retyr': did you mean 'retry'?"),
            (#"flux.outbox{name = "x", actions = {"notes.ad"}, send = print}"#, "unknown action 'notes.ad': did you mean 'notes.add'?"),
            (#"flux.outbox{name = "x", actions = {"notes.add"}, send = print, retry = {first = 1}}"#, "field 'retry': unknown field 'first'"),
            (#"flux.outbox{name = "x", actions = {"notes.add"}, send = print, retry = {first_ms = 10, max_ms = 5}}"#, "first_ms (10) is past max_ms (5)"),
            (#"flux.outbox{name = "x", actions = {"notes.add"}}"#, "field 'send' must be a function(entry, reply), got nil"),
            (#"flux.outbox{name = "x", actions = {}, send = print}"#, "field 'actions' must be a list of action names"),
            (#"flux.outbox{name = "x", actions = {"notes.add"}, send = print, rejected = "notes.refuse"}"#, "did you mean 'notes.refused'?"),
        ]
        for (input, message) in cases {
            let result = t.type(input)
            #expect(!result.ok && result.errors.contains(message), "\(input): \(result.errors)")
        }
        #expect(t.type(#"flux.outbox_state("x")"#).errors.contains("no outbox 'x'"))
        #expect(t.type(#"flux.outbox_state("synk")"#).errors.contains("did you mean 'sync'?"))
    }

    @Test("entries carry id, payload, JSON and attempt; a send that errors is reported and retried, its error kept")
    func sendAndErrors() {
        let t = shell()
        t.type("answers = {'boom'}")
        t.type(#"flux.dispatch("notes.add", {text = "a"})"#)
        let first = t.type("flux.advance(0)")
        #expect(first.errors.contains("no route to host") && first.errors.contains("stack traceback"), "\(first.errors)")
        #expect(t.value("flux.outbox_state('sync').entries[1].last_error").contains("no route to host"))
        let wait = Int(t.value("flux.outbox_state('sync').next_ms")) ?? -1
        #expect((50 ... 100).contains(wait), "the first wait is from first_ms/2 to first_ms: \(wait)")
        t.type("flux.advance(\(wait))")
        #expect(t.value("table.concat(sent, ' | ')") == #"1:a#1 {"text":"a"} | 1:a#2 {"text":"a"}"#)
        #expect(t.value("flux.outbox_state('sync').pending") == "0")
    }

    @Test("a second reply for an entry is an error; the first counts")
    func secondReply() {
        let t = EffectsTranscript()
        t.type(#"flux.store{name = "n", state = {}, on = {["n.add"] = function(s) return s end}}"#)
        t.type(#"flux.outbox{name = "o", actions = {"n.add"}, send = function(entry, reply) reply("ok") reply("retry") end}"#)
        t.type(#"flux.dispatch("n.add")"#)
        let result = t.type("flux.advance(0)")
        #expect(result.errors.contains("reply: entry 1 was answered already (ok)"), "\(result.errors)")
        #expect(t.value("flux.outbox_state('o').sent") == "1")
        t.type(#"flux.outbox{name = "p", actions = {"n.add"}, send = function(entry, reply) reply("yes") end}"#)
        t.type(#"flux.dispatch("n.add")"#)
        #expect(t.type("flux.advance(0)").errors.contains(#""ok", "retry" or "reject" expected, got 'yes'"#))
    }

    @Test("a rejection dispatches the compensation with the entry and the reason")
    func compensation() {
        let t = shell()
        t.type("answers = {'ok', 'reject'}")
        t.type(#"flux.dispatch("notes.add", {text = "a"}) flux.dispatch("notes.add", {text = "b"})"#)
        t.type("flux.advance(0)")
        #expect(t.value("table.concat(flux.state('notes').refused, ' | ')") == "2 notes.add b: because")
        #expect(t.value("flux.outbox_state('sync').rejected") == "1")
    }

    @Test(":outbox lists, pauses, resumes, retries and drops; bad input says what to type")
    func commands() {
        let t = shell()
        #expect(t.type(":outbox").output == "sync: 0 pending, 0 failed, 0 sent, 0 rejected\n")
        t.type("answers = {'retry'}")
        t.type(#"flux.dispatch("notes.add", {text = "a"}) flux.dispatch("notes.add", {text = "b"})"#)
        t.type("flux.advance(0)")
        let listing = t.type(":outbox").output
        #expect(listing.hasPrefix("sync: 2 pending, 1 failed, 0 sent, 0 rejected; next try in "), "\(listing)")
        #expect(listing.contains("  1   notes.add  1         because\n  2   notes.add  0\n"), "\(listing)")
        #expect(t.type(":outbox pause sync").output == "outbox 'sync' paused (2 pending)\n")
        #expect(t.type(":outbox retry sync").errors.contains("paused: :outbox resume sync first"))
        t.type(":outbox resume sync")
        #expect(t.type(":outbox retry sync").output == "outbox 'sync': sending entry 1 now\n")
        t.type("flux.advance(0)")
        #expect(t.value("flux.outbox_state('sync').sent") == "2")
        t.type(":outbox pause sync")
        t.type(#"flux.dispatch("notes.add", {text = "c"})"#)
        #expect(t.type(":outbox drop sync 3").output == "outbox 'sync': entry 3 (notes.add) dropped, never sent\n")
        #expect(t.type(":outbox drop sync 3").errors.contains("has no entry 3 (pending: none)"))
        #expect(t.type(":outbox frob sync").errors.contains("unknown :outbox subcommand 'frob'"))
        #expect(t.type(":outbox paus sync").errors.contains("did you mean 'pause'?"))
        #expect(t.type(":outbox pause snyc").errors.contains("no outbox 'snyc': did you mean 'sync'?"))
        #expect(t.type(":outbox pause").errors.contains("usage: :outbox"))
    }

    @Test(":replay and :goto reproduce states without queueing anything: sending is an effect")
    func replayNeverSends() {
        let t = shell()
        let log = temporaryPath("outbox-replay") + ".log"
        t.type(":record \(log)")
        t.type(#"flux.dispatch("notes.add", {text = "a"})"#)
        t.type(":record")
        t.type("flux.advance(0)")
        t.type(":replay \(log)")
        t.type(":goto #1")
        t.type("flux.advance(0)")
        #expect(t.value("#sent") == "1", "only the dispatch typed was sent")
        #expect(t.value("flux.outbox_state('sync').pending") == "0")
    }
}
