import FluxEffects
import Foundation
import Testing

/// A runtime belongs to the loop of the thread it was made on: whatever thread drops its last reference
/// (tests run on several threads), what ends its effects runs on that loop's thread, and no other loop
/// is touched.
@Suite("Effects across threads", .serialized)
struct EffectsThreadSpec {
    /// What the loop's thread and the test's thread share, under a lock.
    final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var _runtime: Effects?
        private var _released = false
        private var _done = false
        var pid: Int32 = 0
        var timersBefore = 0
        var timersAfter = -1
        var othersFiredAfterRelease = 0
        let ready = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        var runtime: Effects? {
            get { lock.withLock { _runtime } }
            set { lock.withLock { _runtime = newValue } }
        }
        var released: Bool {
            get { lock.withLock { _released } }
            set { lock.withLock { _released = newValue } }
        }
        var done: Bool {
            get { lock.withLock { _done } }
            set { lock.withLock { _done = newValue } }
        }
        func release() {
            let runtime = lock.withLock { () -> Effects? in
                defer { _runtime = nil }
                return _runtime
            }
            // The last reference goes here, on the calling thread.
            _ = runtime
        }
    }

    @Test("a runtime released on another thread ends its process and timer on its own loop, and that loop's other timers go on")
    func releasedElsewhere() throws {
        let shared = Shared()
        let loopThread = Thread {
            let loop = EventLoop.shared
            let other = Effects()
            var othersFired = 0, firedAtRelease = -1
            do {
                let mine = Effects()
                try mine.every(5, owner: EffectOwner("released")) {}
                let process = try mine.spawn(["sleep", "30"], owner: EffectOwner("released"), onLine: { _, _ in }, onExit: { _, _ in })
                shared.pid = process.pid ?? 0
                try other.every(1, owner: EffectOwner("kept")) { othersFired += 1 }
                shared.timersBefore = loop.timerCount
                shared.runtime = mine
            } catch {
                shared.ready.signal()
                shared.finished.signal()
                return
            }
            shared.ready.signal()
            other.runUntilIdle {
                if shared.released, firedAtRelease < 0 { firedAtRelease = othersFired }
                if shared.released, shared.timersAfter < 0, !isRunning(shared.pid) { shared.timersAfter = loop.timerCount }
                return shared.done
            }
            shared.othersFiredAfterRelease = othersFired - max(0, firedAtRelease)
            other.endAll()
            shared.finished.signal()
        }
        loopThread.start()
        shared.ready.wait()
        #expect(shared.pid > 0)
        #expect(isRunning(shared.pid))
        shared.release()
        shared.released = true
        let deadline = Date().addingTimeInterval(5)
        while isRunning(shared.pid), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.1)
        shared.done = true
        shared.finished.wait()
        #expect(!isRunning(shared.pid), "the released runtime's process was ended on its loop's thread")
        #expect(shared.timersAfter == shared.timersBefore - 1, "only the released runtime's timer left the loop")
        #expect(shared.othersFiredAfterRelease > 10, "the loop's other timer kept firing")
    }

    @Test("work handed to a loop from another thread runs on the loop's thread, at its next round")
    func perform() throws {
        let shared = Shared()
        final class Flag: @unchecked Sendable {
            let lock = NSLock()
            var ranOnLoop: Bool?
        }
        let flag = Flag()
        let loopThread = Thread {
            let loop = EventLoop.shared
            let effects = Effects()
            shared.runtime = effects
            shared.ready.signal()
            let start = Date()
            while flag.lock.withLock({ flag.ranOnLoop == nil }), Date().timeIntervalSince(start) < 5 { loop.runOnce() }
            shared.finished.signal()
        }
        loopThread.start()
        shared.ready.wait()
        let loop = try #require(shared.runtime).loop
        #expect(!loop.isCurrent)
        loop.perform { [loop] in
            flag.lock.withLock { flag.ranOnLoop = loop.isCurrent }
        }
        shared.finished.wait()
        #expect(flag.lock.withLock { flag.ranOnLoop } == true)
        shared.runtime = nil
    }
}
