import Testing
@testable import Flux

/// The numbers of a log line are written as digits straight into its bytes: the same bytes as
/// `String(value)` and `Double.description` wrote before, so old logs and sessions read the same and a
/// replay gets the same numbers back.
@Suite("Action log numbers")
struct ActionLogNumberSpec {
    static func float(_ value: Double) -> String? {
        var bytes: [UInt8] = []
        guard JSONText.appendFloat(value, to: &bytes) else {
            #expect(bytes.isEmpty)
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func integer(_ value: Int) -> String {
        var bytes: [UInt8] = []
        JSONText.appendInteger(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("a double is written as Double.description writes it: random doubles of every size and the edges")
    func floatsAsDescription() {
        var rng = SplitMix64(seed: 35)
        var values: [Double] = [
            0, -0.0, 1, -1, 0.5, 0.1, 0.0001, 0.00001, 1e-300, .leastNonzeroMagnitude, .leastNormalMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .ulpOfOne, 1 + .ulpOfOne, 2.0, 1e15, 1e16, 1e17,
            9_007_199_254_740_992, 9_007_199_254_740_991, 9_007_199_254_740_994, 18_014_398_509_481_984,
            562_949_953_421_312.25, 4_503_599_627_370_495.5, 1_795_000_000.5, 1_795_000_000.012, 123.456, -123.456,
        ]
        for exponent in 0 ..< 64 {
            let power = Double(sign: .plus, exponent: exponent, significand: 1)
            values += [power, power.nextUp, power.nextDown, power + 0.25, power + 0.5, power + 0.75, -power.nextUp]
        }
        var time = 1_795_000_000.0
        for _ in 0 ..< 20_000 {
            time += 0.000012
            values.append(time)
            values.append(Double(bitPattern: rng.next()))                                     // any size, sign or special
            values.append(Double(bitPattern: 0x3FF0_0000_0000_0000 + rng.next() % 0x0350_0000_0000_0000)) // 1 … 2^54
            values.append(Double(rng.next() % 100_000_000) / 1000)
        }
        var wrong: [String] = []
        for value in values {
            let written = Self.float(value)
            let expected = value.isFinite ? value.description : nil
            if written != expected { wrong.append("\(value.bitPattern): \(written ?? "nil") ≠ \(expected ?? "nil")") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    @Test("infinities and NaN have no JSON form: nothing written, false")
    func specials() {
        #expect(Self.float(.infinity) == nil)
        #expect(Self.float(-.infinity) == nil)
        #expect(Self.float(.nan) == nil)
        #expect(Self.float(.signalingNaN) == nil)
    }

    @Test("an integer is written as String(value) writes it")
    func integersAsString() {
        var rng = SplitMix64(seed: 53)
        var values = [0, 1, -1, 9, 10, 99, 100, -100, Int.max, Int.min, Int.min + 1, 9_007_199_254_740_993]
        for _ in 0 ..< 10_000 { values += [Int(bitPattern: UInt(rng.next())), Int(rng.next() % 10_000) - 5_000] }
        for value in values { #expect(Self.integer(value) == String(value)) }
    }

    @Test("a line's bytes: name, payload, follow-up, group and label, and the time as before; a time with no JSON form is 0.0")
    func lineBytes() throws {
        var entry = ActionLogEntry(action: Increment(by: -3), time: 1_795_000_000.012, group: (id: 12, label: "Move \"x\"\n"),
                                   isFollowUp: true)
        entry.isEffect = true
        #expect(try entry.jsonLine()
            == #"{"name":"counter.increment","payload":{"by":-3},"followUp":true,"effect":true,"group":12,"label":"Move \"x\"\n","time":1795000000.012}"#)
        #expect(try ActionLogEntry(step: .undo, time: 1e-7).jsonLine() == #"{"step":"undo","time":1e-07}"#)
        #expect(try ActionLogEntry(step: .redo, time: .nan).jsonLine() == #"{"step":"redo","time":0.0}"#)
        #expect(try ActionLogEntry(action: Increment(by: 1), time: 9_007_199_254_740_992).jsonLine()
            == #"{"name":"counter.increment","payload":{"by":1},"time":9007199254740992.0}"#)
    }
}
