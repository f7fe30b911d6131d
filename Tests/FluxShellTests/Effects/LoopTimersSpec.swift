@testable import FluxEffects
import Foundation
import Testing

/// The event loop's own timers: what it sleeps until and what it fires when it wakes, in nanoseconds.
@Suite("The loop's timers")
struct LoopTimersSpec {
    /// Fires what is due at `now`, in order; returns the names fired.
    private func fire(_ timers: inout LoopTimers, at now: Int64, _ log: Log) -> [String] {
        log.names = []
        while let handler = timers.popDue(at: now) { handler() }
        return log.names
    }

    final class Log { var names: [String] = [] }

    @Test("what is due fires earliest first in one wake-up, ties in the order set; the loop sleeps until the next")
    func order() {
        var timers = LoopTimers()
        let log = Log()
        _ = timers.add(due: 300, interval: 0) { log.names.append("c 300") }
        _ = timers.add(due: 100, interval: 0) { log.names.append("a 100") }
        _ = timers.add(due: 100, interval: 0) { log.names.append("b 100") }
        #expect(timers.nextDue() == 100)
        #expect(fire(&timers, at: 99, log) == [])
        #expect(fire(&timers, at: 300, log) == ["a 100", "b 100", "c 300"])
        #expect(timers.count == 0)
        #expect(timers.nextDue() == 0)
    }

    @Test("a repeating timer is due an interval after its due time, not after when it fired: no drift; after a stall, one firing, then an interval on")
    func repeating() {
        var timers = LoopTimers()
        let log = Log()
        let id = timers.add(due: 1_000_000, interval: 1_000_000) { log.names.append("tick") }
        #expect(fire(&timers, at: 1_000_400, log) == ["tick"]) // woke 0.4 ms late
        #expect(timers.due(of: id) == 2_000_000)
        #expect(fire(&timers, at: 9_500_000, log) == ["tick"]) // a stall of 7.5 ms: no burst of 7
        #expect(timers.due(of: id) == 10_500_000)
        timers.remove(id)
        #expect(timers.due(of: id) == nil)
        #expect(fire(&timers, at: 20_000_000, log) == [])
        #expect(timers.nextDue() == 0)
    }

    @Test("cancelling a fired or cancelled timer leaves the timer that reuses its slot alone")
    func staleCancel() {
        var timers = LoopTimers()
        let log = Log()
        let first = timers.add(due: 10, interval: 0) { log.names.append("first") }
        #expect(fire(&timers, at: 10, log) == ["first"])
        let second = timers.add(due: 20, interval: 0) { log.names.append("second") }
        #expect(second.slot == first.slot)
        timers.remove(first)
        timers.remove(first)
        #expect(timers.count == 1)
        #expect(fire(&timers, at: 20, log) == ["second"])
    }

    @Test("hundreds of timers, repeating and not, set, cancelled and fired at random, fire as a sorted list of them says: earliest first, ties in the order set")
    func againstASortedList() {
        var random = SeededRandom(seed: 32)
        var timers = LoopTimers()
        let log = Log()
        // The model: each live timer's due time, the order it was (re)set in, and its interval.
        struct Model { var due: Int64; var order: Int; var interval: Int64; let id: LoopTimers.ID }
        var model: [String: Model] = [:]
        var order = 0, now: Int64 = 0, fired = 0
        for step in 0..<2000 {
            switch random.next() % 4 {
            case 0, 1:
                let name = "t\(step)"
                let due = now + Int64(random.next() % 50)
                let interval = random.next() % 3 == 0 ? 0 : Int64(1 + random.next() % 40)
                let id = timers.add(due: due, interval: interval) { log.names.append(name) }
                order += 1
                model[name] = Model(due: due, order: order, interval: interval, id: id)
            case 2:
                guard let name = model.keys.sorted().randomElement(using: &random) else { continue }
                timers.remove(model[name]!.id)
                model[name] = nil
            default:
                now += Int64(random.next() % 30)
                var expected: [String] = []
                while let (name, next) = model.filter({ $0.value.due <= now })
                    .min(by: { ($0.value.due, $0.value.order) < ($1.value.due, $1.value.order) }) {
                    expected.append(name)
                    if next.interval > 0 {
                        order += 1
                        let due = next.due + next.interval
                        model[name]!.due = due <= now ? now + next.interval : due
                        model[name]!.order = order
                    } else {
                        model[name] = nil
                    }
                }
                let got = fire(&timers, at: now, log)
                #expect(got == expected, "at \(now), step \(step)")
                if got != expected { return }
                fired += got.count
            }
            #expect(timers.count == model.count)
            #expect(timers.nextDue() == (model.values.map(\.due).min() ?? 0))
        }
        #expect(fired > 500, "the walk fired timers: \(fired)")
    }

    @Test("on the real clock a 1 ms timer never fires early: 50 firings take at least 49 ms, and end")
    func realInterval() throws {
        let effects = Effects()
        var fired = 0
        var handle: Effect?
        handle = try effects.every(1, owner: EffectOwner("spec")) {
            fired += 1
            if fired == 50 { handle?.cancel() }
        }
        let start = Date()
        effects.runUntilIdle(timeout: 5000)
        let elapsed = Date().timeIntervalSince(start)
        #expect(fired == 50)
        // Generous for a loaded machine, but below what libuv's timers took (each repeat re-armed from the
        // loop's millisecond clock, rounded up: 1.2 to 2 ms a firing).
        #expect(elapsed >= 0.049)
        #expect(elapsed < 0.5)
    }
}
