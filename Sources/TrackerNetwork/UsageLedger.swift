#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerSystem
import TrackerModel

/// What a request to Airtable was, as the month's count keeps it: a read or a write someone asked for, or the upkeep
/// of a copy that nobody asked for at that moment (polling, refreshing).
public enum RequestUse: String, Sendable, CaseIterable {
    case read, write, upkeep
}

/// Whether a request was asked for (a command, a key on the board, an assistant's call) or is a face's background
/// work; set around the background's requests, read where they are counted.
public enum RequestPurpose: Sendable {
    case asked, background

    /// The purpose of the requests sent from the current task.
    @TaskLocal public static var current = RequestPurpose.asked
}

/// One calendar month (UTC) of requests to one base, as counted where its budget is kept.
public struct MonthUsage: Sendable, Equatable {
    /// `2026-11`.
    public var month: String
    /// Requests by face (`cli`, `board`, `mcp`, …) and use.
    public var counts: [Count]
    /// When Airtable last said the workspace's month is spent (seconds since 1970), if it did this month.
    public var spentAt: Double?

    /// One face's requests of one use.
    public struct Count: Sendable, Equatable {
        public var face: String
        public var use: RequestUse
        public var requests: Int

        public init(face: String, use: RequestUse, requests: Int) {
            (self.face, self.use, self.requests) = (face, use, requests)
        }
    }

    public init(month: String, counts: [Count] = [], spentAt: Double? = nil) {
        (self.month, self.counts, self.spentAt) = (month, counts, spentAt)
    }

    /// Every request of the month.
    public var total: Int { counts.reduce(0) { $0 + $1.requests } }

    /// The requests of one use.
    public func requests(_ use: RequestUse) -> Int { counts.filter { $0.use == use }.reduce(0) { $0 + $1.requests } }

    /// The counts as stored: `face use` → requests, and `spent` → time.
    package init(month: String, fields: [(String, String)]) {
        self.month = month
        var counts: [String: Count] = [:]
        for (name, value) in fields {
            if name == "spent" {
                spentAt = Double(value)
                continue
            }
            let parts = name.split(separator: " ")
            guard parts.count == 2, let use = RequestUse(rawValue: String(parts[1])), let requests = Int(value),
                requests > 0
            else { continue }
            let face = String(parts[0])
            counts[name, default: Count(face: face, use: use, requests: 0)].requests += requests
        }
        self.counts = counts.values.sorted { ($0.face, $0.use.rawValue) < ($1.face, $1.use.rawValue) }
    }

    /// The calendar month (UTC) of `seconds` since 1970: `2026-11`.
    public static func month(at seconds: Double) -> String {
        let date = CalendarDate(dayNumber: Int((seconds / 86_400).rounded(.down)))
        return "\(date.year)-" + (date.month < 10 ? "0" : "") + "\(date.month)"
    }

    /// The month's first moment and the next month's, in seconds since 1970 (UTC).
    public static func bounds(at seconds: Double) -> (start: Double, end: Double) {
        let date = CalendarDate(dayNumber: Int((seconds / 86_400).rounded(.down)))
        let first = CalendarDate(year: date.year, month: date.month, day: 1)!
        let next =
            date.month == 12
            ? CalendarDate(year: date.year + 1, month: 1, day: 1)!
            : CalendarDate(year: date.year, month: date.month + 1, day: 1)!
        return (Double(first.dayNumber) * 86_400, Double(next.dayNumber) * 86_400)
    }
}

/// Counts every request tracker sends to a base in the month it is sent, where the base's per-second budget is kept
/// (this machine's runtime directory, or the team's Redis), and remembers when Airtable said the month is spent.
public protocol UsageLedger: Sendable {
    /// One request sent by `face`, of `use`.
    func count(face: String, use: RequestUse)
    /// Airtable answered that the workspace's month of calls is spent.
    func markSpent()
    /// This month's counts; nil when they cannot be read.
    func thisMonth() -> MonthUsage?
    /// Where the counts are kept, in words (`doctor`, `usage`).
    var keeper: String { get }
}

/// A ledger that counts nothing (tests, endpoints tracker does not count).
public struct NoUsageLedger: UsageLedger {
    public init() {}
    public func count(face: String, use: RequestUse) {}
    public func markSpent() {}
    public func thisMonth() -> MonthUsage? { nil }
    public var keeper: String { "nowhere" }
}

/// The month's counts in a file of the runtime directory, one per base and month, changed under `flock`: every
/// tracker process of this user on this machine counts into it.
public struct FileUsageLedger: UsageLedger {
    let directory: RuntimeDirectory
    let base: String
    let wallClock: @Sendable () -> Double

    /// Counts requests to `owner`'s base in `directory`, by the month `wallClock` (seconds since 1970) is in.
    public init(
        directory: RuntimeDirectory, owner: BudgetOwner,
        wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.directory = directory
        base = String(
            FileRequestPacer.slotName(endpoint: owner.endpoint, baseID: owner.baseID).dropFirst("pace-".count))
        self.wallClock = wallClock
    }

    public var keeper: String { "this machine's runtime directory" }

    func name(_ month: String) -> String { "usage-\(base)-\(month)" }

    public func count(face: String, use: RequestUse) {
        update { fields in
            let key = "\(face) \(use.rawValue)"
            if let index = fields.firstIndex(where: { $0.0 == key }) {
                fields[index].1 = String((Int(fields[index].1) ?? 0) + 1)
            } else {
                fields.append((key, "1"))
            }
        }
    }

    public func markSpent() {
        let now = wallClock()
        update { fields in
            fields.removeAll { $0.0 == "spent" }
            fields.append(("spent", "\(now)"))
        }
    }

    public func thisMonth() -> MonthUsage? {
        var read: MonthUsage?
        update(writing: false) { fields in read = MonthUsage(month: MonthUsage.month(at: wallClock()), fields: fields) }
        return read
    }

    /// Reads the month's file under an exclusive lock, lets `change` change its fields, and writes them back.
    private func update(writing: Bool = true, _ change: (inout [(String, String)]) -> Void) {
        _ = directory.changingText(name(MonthUsage.month(at: wallClock())), capacity: 8_192, padding: 0x0A) { text in
            var fields: [(String, String)] = text.split(separator: "\n").compactMap { line in
                let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }
            change(&fields)
            text = fields.map { "\($0.0)\t\($0.1)\n" }.joined()
            return ((), writing)
        }
    }
}
