import Foundation

/// A line on stderr redrawn in place while a long write runs: done / total, rate, time left. Only on a terminal.
struct ProgressLine {
    private let output: Output
    private let label: String
    private let total: Int
    private let started: Double
    private let now: @Sendable () -> Double
    private(set) var isShown = false

    init(output: Output, label: String, total: Int, now: @escaping @Sendable () -> Double) {
        self.output = output
        self.label = label
        self.total = total
        self.now = now
        self.started = now()
    }

    /// Redraws the line for `done` of the total.
    mutating func update(done: Int) {
        output.standardError("\r\u{1B}[K" + Self.text(label: label, done: done, total: total, seconds: now() - started))
        isShown = true
    }

    /// Removes the line, so what follows starts on a clean line.
    mutating func clear() {
        if isShown { output.standardError("\r\u{1B}[K") }
        isShown = false
    }

    /// `import: 340/1,000 rows (34%), 48 rows/s, 14s left`.
    static func text(label: String, done: Int, total: Int, seconds: Double) -> String {
        let percent = total == 0 ? 100 : done * 100 / total
        var text = "\(label): \(done.formatted())/\(total.formatted()) rows (\(percent)%)"
        guard done > 0, seconds > 0.5 else { return text }
        let rate = Double(done) / seconds
        text += ", \(Int(rate.rounded())) rows/s"
        if done < total { text += ", \(Int((Double(total - done) / rate).rounded(.up)))s left" }
        return text
    }
}

extension Int {
    /// The number with a comma every three digits, whatever the locale (cron's is often C).
    func formatted() -> String {
        let digits = String(abs(self))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (self < 0 ? "-" : "") + text
    }
}
