/// The few JSON pieces an action log line is assembled from by hand.
public enum JSONText {
    /// `text` as a JSON string, quoted and escaped.
    public static func quote(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// A finite double as a JSON number that reads back as a double: always with a point or an
    /// exponent (`2.0`, `1e+300`), the shortest text that round-trips. Nil for infinities and NaN.
    public static func float(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        return value.description
    }
}
