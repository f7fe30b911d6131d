import Glibc

/// Times workloads on the monotonic clock and reads this process's memory.
enum Measure {
    /// The wall-clock seconds `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return (clock.now - start).seconds
    }

    /// The resident memory of this process now, in bytes, from `/proc/self/statm` (nil elsewhere).
    ///
    /// statm rather than getrusage: we want the memory held now, not the peak, to see whether it grows.
    static func residentBytes() -> Int? {
        guard let line = firstLine(of: "/proc/self/statm") else { return nil }
        let fields = line.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// The 1-minute load average: how busy the machine was while the figures were taken.
    static func loadAverage() -> String {
        firstLine(of: "/proc/loadavg")?.split(separator: " ").first.map(String.init) ?? "?"
    }

    /// The first line of a small file such as those in /proc, read without Foundation.
    private static func firstLine(of path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) * 1e-18
    }
}

/// The figures of repeated runs of one measurement: the table shows the median, and the spread tells
/// how noisy the machine was while it ran.
struct Samples {
    private(set) var values: [Double] = []

    /// No figures yet.
    init() {}

    /// The given figures.
    init(_ values: [Double]) {
        self.values = values
    }

    /// Adds the figure of one run.
    mutating func add(_ value: Double) {
        values.append(value)
    }

    /// Whether there is no figure.
    var isEmpty: Bool { values.isEmpty }

    /// The middle figure (the mean of the two middle ones for an even count).
    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The smallest figure.
    var minimum: Double { values.min() ?? .nan }
    /// The largest figure.
    var maximum: Double { values.max() ?? .nan }

    /// Every figure transformed: seconds into a throughput, bytes into MiB.
    func map(_ transform: (Double) -> Double) -> Samples {
        Samples(values.map(transform))
    }

    /// Figure by figure, `self[i] / other[i]`: the ratio of two measurements run in the same rounds,
    /// so a burst of load from elsewhere weighs on both sides of the ratio alike.
    func ratio(to other: Samples) -> Samples {
        Samples(zip(values, other.values).map { $0 / $1 })
    }
}
