#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

/// Done / total, rate and time left of a long write, on the status line (so only on a terminal).
struct ProgressLine {
    private let status: StatusLine
    private let label: String
    private let total: Int
    private let started: Double
    private let now: @Sendable () -> Double

    init(status: StatusLine, label: String, total: Int, now: @escaping @Sendable () -> Double) {
        self.status = status
        self.label = label
        self.total = total
        self.now = now
        self.started = now()
    }

    /// Redraws the line for `done` of the total.
    func update(done: Int) {
        status.show(Self.text(label: label, done: done, total: total, seconds: now() - started))
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
