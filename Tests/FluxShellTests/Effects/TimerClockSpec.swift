import FluxEffects
import Foundation
import Testing

/// Timers on the real clock: one timer descriptor per runtime, armed at the earliest due time.
@Suite("Timers on the real clock", .serialized)
struct TimerClockSpec {
    let owner = EffectOwner("timer spec")

    @Test("timers set in any order fire earliest first; one cancelled before its time never fires")
    func earliestFirst() throws {
        let effects = Effects()
        var fired: [Int] = []
        try effects.after(30, owner: owner) { fired.append(30) }
        try effects.after(10, owner: owner) { fired.append(10) }
        let cancelled = try effects.after(5, owner: owner) { fired.append(5) }
        try effects.after(20, owner: owner) { fired.append(20) }
        cancelled.cancel()
        #expect(effects.runUntilIdle(timeout: 5000))
        #expect(fired == [10, 20, 30])
        #expect(effects.isEmpty)
    }

    @Test("a repeating timer that fell behind skips the periods it missed instead of firing them in a burst")
    func noBurstAfterStall() throws {
        let effects = Effects()
        var times: [UInt64] = []
        var timer: Effect?
        timer = try effects.every(1, owner: owner) {
            times.append(DispatchTime.now().uptimeNanoseconds)
            if times.count == 1 { usleep(50_000) } // 50 periods missed
            if times.count == 5 { timer?.cancel() }
        }
        #expect(effects.runUntilIdle(timeout: 5000))
        #expect(times.count == 5)
        // Firings 2 to 5 come a period apart (or later), not all at once after the stall.
        #expect(times[4] - times[1] >= 2_500_000)
    }

    @Test("after its last timer is cancelled, a runtime leaves the loop nothing to wait for")
    func cancelledLeavesNothing() throws {
        let effects = Effects()
        let timer = try effects.every(1, owner: owner) {}
        #expect(effects.isBusy)
        timer.cancel()
        #expect(!effects.isBusy)
        let start = DispatchTime.now().uptimeNanoseconds
        #expect(effects.runUntilIdle(timeout: 5000))
        #expect(DispatchTime.now().uptimeNanoseconds - start < 1_000_000_000)
    }
}
