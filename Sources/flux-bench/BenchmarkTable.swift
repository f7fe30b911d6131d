/// One figure of one workload, as a line of the table.
struct Figure {
    /// The workload, numbered as in the benchmark's description: "1 Swift dispatch".
    let workload: String
    /// What is measured: "10 subscribers", "diff".
    let name: String
    /// The figure of every run; empty when the workload could not run (`notes` says why).
    let samples: Samples
    /// The unit of the figures: "M actions/s", "ms".
    let unit: String
    /// The ratio to a baseline, a target, or why there is no figure.
    var notes: String = ""
}

/// Prints figures as one aligned table with columns workload, figure, median, min–max, unit and
/// ratio/notes. The columns are separated by pipes, so the output is also a Markdown table.
struct BenchmarkTable {
    /// The lines of the table, in the order given.
    var figures: [Figure] = []

    private static let header = ["workload", "figure", "median", "min–max", "unit", "ratio / notes"]

    /// The table as text, one line per figure after a header and a rule.
    func render() -> String {
        var lines = [Self.header]
        for figure in figures {
            let samples = figure.samples
            lines.append([
                figure.workload,
                figure.name,
                samples.isEmpty ? "—" : format(samples.median),
                samples.values.count < 2 ? "" : "\(format(samples.minimum))–\(format(samples.maximum))",
                figure.unit,
                figure.notes,
            ])
        }
        var widths = Self.header.map { _ in 0 }
        for line in lines {
            for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        // The figures are numbers: right-aligned so their digits line up.
        let numeric: Set<Int> = [2, 3]
        func row(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return numeric.contains(column) ? padding + cell : cell + padding
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        var text = row(lines[0]) + "\n"
        text += "|" + widths.enumerated().map { column, width in
            numeric.contains(column) ? String(repeating: "-", count: width + 1) + ":" : String(repeating: "-", count: width + 2)
        }.joined(separator: "|") + "|\n"
        for line in lines.dropFirst() { text += row(line) + "\n" }
        return text
    }
}

/// `value` with about three significant digits: 2.41, 24.1, 241, 2410.
func format(_ value: Double) -> String {
    guard value.isFinite else { return "—" }
    let magnitude = abs(value)
    let decimals: Int
    switch magnitude {
    case 100...: decimals = 0
    case 10...: decimals = 1
    case 1...: decimals = 2
    case 0.1...: decimals = 3
    case 0: decimals = 0
    default: decimals = 4
    }
    return fixed(value, decimals: decimals)
}

/// `value` rounded to `decimals` places, without Foundation's formatter.
func fixed(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0 ..< decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
        let fraction = Int(scaled - Double(whole) * scale)
        let digits = String(fraction)
        text += "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
    return text
}

/// The ratio column for a figure measured against a baseline: "2 ÷ 3 = 1.32 (1.28–1.40 per round)",
/// with the rounds' ratios so a reader can tell noise from a real difference.
func ratioNote(_ ratios: Samples, label: String) -> String {
    guard !ratios.isEmpty else { return "" }
    var note = "\(label) = \(fixed(ratios.median, decimals: 2))"
    if ratios.values.count > 1 {
        note += " (\(fixed(ratios.minimum, decimals: 2))–\(fixed(ratios.maximum, decimals: 2)) per round)"
    }
    return note + (ratios.median < 1 ? ": slower than the baseline" : ": faster than the baseline")
}
