extension JSONText {
    /// Appends `value` in decimal digits to the UTF-8 `output`, as `String(value)` writes it, with no
    /// string of its own (a journal writes a few numbers per action it saves).
    public static func appendInteger(_ value: Int, to output: inout [UInt8]) {
        var text = ShortText()
        text.prependDigits(UInt64(value.magnitude))
        if value < 0 { text.prepend(UInt8(ascii: "-")) }
        text.append(to: &output)
    }

    /// Appends a finite double as ``float(_:)`` writes it (`Double.description`: the shortest text
    /// that reads back as the same double, always with a point or an exponent) to the UTF-8 `output`;
    /// false, with nothing appended, for an infinity or NaN.
    ///
    /// From 1 up to 2^53 (in magnitude) the digits are found here, in integers, with no string made;
    /// any other value, and the rare one whose shortest text is a tie between two or lies on the edge
    /// of the values that round to it, is written by `description` itself, so the bytes are always
    /// the same as its.
    @discardableResult
    public static func appendFloat(_ value: Double, to output: inout [UInt8]) -> Bool {
        guard value.isFinite else { return false }
        let magnitude = value.magnitude
        if magnitude >= 1, magnitude < 9_007_199_254_740_992, var text = shortest(magnitude) {
            if value < 0 { text.prepend(UInt8(ascii: "-")) }
            text.append(to: &output)
        } else {
            output.append(contentsOf: value.description.utf8)
        }
        return true
    }

    /// `value` (in [1, 2^53)) as its integral digits, a point and the fewest fraction digits that read
    /// back as it (`.0` for a whole number), the nearest such when there are two; nil when two are
    /// equally near or one is exactly half a unit in the last place away (left to `description`).
    ///
    /// The value is `significand / 2^shift`; its fraction and half the gap to the next double are kept
    /// as integers in units of 2^-(shift+1), multiplied by 10 at each digit: the first digit count at
    /// which the nearest decimal lies closer than that half-gap is the shortest (every value in the
    /// gap reads back as the double).
    private static func shortest(_ value: Double) -> ShortText? {
        let significand = value.significandBitPattern | (1 << 52)
        let shift = 52 - Int(value.exponent)
        guard (0 ... 52).contains(shift) else { return nil }
        let integral = significand >> UInt64(shift)
        let fraction = significand & ((1 << UInt64(shift)) - 1)
        var text = ShortText()
        guard fraction != 0 else {
            text.prepend(UInt8(ascii: "0"))
            text.prepend(UInt8(ascii: "."))
            text.prependDigits(integral)
            return text
        }
        // Below 2^53 every whole number is a double: a value with a fraction needs fraction digits,
        // and the nearest decimal never carries into the integral part (it is nearer the value than
        // the next whole number is). The unit is at most 2^53 and the half-gap reaches it by the 16th
        // digit: nothing here passes 2^58.
        let unit = UInt64(1) << UInt64(shift + 1)
        var rest = fraction << 1
        var halfGap: UInt64 = 1
        var decimals: UInt64 = 0
        var count = 0
        while true {
            rest *= 10
            halfGap *= 10
            count += 1
            decimals = decimals * 10 + rest >> UInt64(shift + 1)
            rest &= unit - 1
            let up = unit - rest
            let distance = min(rest, up)
            if distance == halfGap { return nil }
            if distance < halfGap {
                if rest == up { return nil }
                if rest > up { decimals += 1 }
                break
            }
            if count >= 17 { return nil }
        }
        text.prependDigits(decimals, minimumCount: count)
        text.prepend(UInt8(ascii: "."))
        text.prependDigits(integral)
        return text.overflowed ? nil : text
    }
}
