/// A time estimate as typed (docs/contract.md "Tasks"): `1.5`, `0.5`, `2d`, or `1w` for five working days.
public enum DaysInput {
    /// The days `text` says, or nil when it is not a non-negative number of days or weeks.
    public static func days(_ text: String) -> Double? {
        var number = text.trimmingWhitespace().lowercased()
        var scale = 1.0
        if number.hasSuffix("w") {
            scale = 5
            number.removeLast()
        } else if number.hasSuffix("d") {
            number.removeLast()
        }
        // Digits and one point only: no signs, exponents, "nan" or "inf" that Double(_:) would take.
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            number.filter({ $0 == "." }).count <= 1, number != ".", let value = Double(number)
        else { return nil }
        return value * scale
    }

    /// Whether `days` has no more decimal places than `precision` allows (a number field's `precision`).
    public static func fits(_ days: Double, precision: Int) -> Bool {
        var scaled = days
        for _ in 0..<max(0, precision) { scaled *= 10 }
        return abs(scaled - scaled.rounded()) < 1e-9 * max(1, abs(scaled))
    }
}
