/// "Due within N days", one definition for every command and face (list's `--due-within`, the board's This week,
/// report's Due soon, status): due today or on one of the N-1 days after it, N days with today the first. On a
/// Friday, "within 7 days" runs to Thursday; the Friday after is the eighth day.
public struct DueWithin: Sendable, Equatable {
    /// How many days, today the first.
    public let days: Int
    /// The first day, today.
    public let today: CalendarDate

    public init(days: Int, from today: CalendarDate) {
        self.days = days
        self.today = today
    }

    /// The last day the window holds: today when N is 1.
    public var lastDay: CalendarDate { CalendarDate(dayNumber: today.dayNumber + days - 1) }

    /// The day after the window, the first that is not in it.
    public var firstDayAfter: CalendarDate { CalendarDate(dayNumber: today.dayNumber + days) }

    /// Whether a project due on `due` is due within the window.
    public func contains(_ due: CalendarDate) -> Bool { !(due < today) && due < firstDayAfter }

    /// The words every help uses for it, with the number's name (`DAYS`, `N`) or the number itself.
    public static func words(_ count: String) -> String {
        "due today or in the \(Int(count).map { "\($0 - 1)" } ?? count + "-1") days after it"
    }
}
