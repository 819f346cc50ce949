/// How often a face may poll Airtable for what changed, as the base's month allows: its own interval while someone
/// looks; doubling, round by round, to one check in 5 minutes while nobody does; never faster than the plan's
/// background share allows for the rest of the month; one try in 10 minutes once Airtable says the month is spent.
/// Faces ask it; they do not decide alone.
public struct PollingPace: Sendable, Equatable {
    /// The face's own interval, in seconds (the board's refresh, `teamCopyEvery`).
    public var every: Double
    /// Rounds in a row with nobody looking.
    public private(set) var idleRounds = 0

    /// The longest an idle face waits between checks.
    public static let longestIdle = 300.0
    /// How often a face tries again once Airtable said the month's calls are spent.
    public static let spentRetry = 600.0
    /// The longest the background share stretches an interval to: one check an hour once its share is spent.
    public static let longestStretch = 3_600.0

    public init(every: Double) { self.every = every }

    /// The interval now: the face's own, doubled for each idle round, 5 minutes at most (or the face's own if longer).
    public var idleInterval: Double {
        guard idleRounds > 0 else { return every }
        let doubled = every * Double(1 << min(idleRounds, 16))
        return max(every, min(Self.longestIdle, doubled))
    }

    /// Whether the face is polling slower than its own interval because nobody looks.
    public var isBackedOff: Bool { idleInterval > every }

    /// After a round: someone looked since the last one (a key, focus, a call) or not.
    public mutating func roundEnded(looked: Bool) { idleRounds = looked ? 0 : idleRounds + 1 }

    /// Someone looks now: back to the face's own interval.
    public mutating func looked() { idleRounds = 0 }

    /// The interval to wait before the next round, given what the month's count says (nil when it cannot be read).
    public func interval(month: MonthUsage?, at time: Double, monthlyCalls: Int?, backgroundShare: Double) -> Double {
        if let spent = month?.spentAt, MonthUsage.month(at: spent) == MonthUsage.month(at: time) {
            return Self.spentRetry
        }
        let budget =
            month.map {
                Self.backgroundInterval(month: $0, at: time, monthlyCalls: monthlyCalls, share: backgroundShare)
            } ?? 0
        return max(idleInterval, budget)
    }

    /// The least interval between background rounds (about one request each) that keeps the month's upkeep within
    /// `share` of `monthlyCalls`: what is left of the share spread over what is left of the month. 0 without a limit.
    public static func backgroundInterval(month: MonthUsage, at time: Double, monthlyCalls: Int?, share: Double)
        -> Double
    {
        guard let calls = monthlyCalls, calls > 0 else { return 0 }
        let left = share * Double(calls) - Double(month.requests(.upkeep))
        let seconds = max(1, MonthUsage.bounds(at: time).end - time)
        guard left >= 1 else { return longestStretch }
        return min(longestStretch, seconds / left)
    }
}
