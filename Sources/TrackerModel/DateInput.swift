/// The dates a user may type for any DATE flag (docs/contract.md "Dates"), resolved against today.
public enum DateInput {
    /// What a typed date turned out to be.
    public enum Reading: Equatable, Sendable {
        case date(CalendarDate)
        /// Well formed, but no such day (2026-02-30).
        case impossible
        case unrecognized
    }

    /// `YYYY-MM-DD` or `YYYY-M-D`; `today`, `tomorrow`, `yesterday`; a weekday (the next one, never today);
    /// `+3d`, `+2w`, `-1d` from today. Case does not matter.
    public static func read(_ text: String, today: CalendarDate) -> Reading {
        let word = text.trimmingWhitespace().lowercased()
        switch word {
        case "today": return .date(today)
        case "tomorrow": return .date(today.adding(days: 1))
        case "yesterday": return .date(today.adding(days: -1))
        default: break
        }
        if let weekday = weekdays.firstIndex(where: { $0 == word || $0.prefix(3) == word }) {
            // 1970-01-01 was a Thursday (index 3 here, counting from Monday).
            let todayIndex = ((today.dayNumber % 7) + 7 + 3) % 7
            let ahead = (weekday - todayIndex + 7) % 7
            return .date(today.adding(days: ahead == 0 ? 7 : ahead))
        }
        if let offset = offset(word) { return .date(today.adding(days: offset)) }
        return calendarDate(word)
    }

    /// The words and forms, for error messages.
    public static let forms = "YYYY-MM-DD, today, tomorrow, yesterday, a weekday like friday, or +3d, +2w, -1d"

    private static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// `+3d`, `-1d`, `+2w`: days from today.
    private static func offset(_ word: String) -> Int? {
        guard let sign = word.first, sign == "+" || sign == "-", let unit = word.last, unit == "d" || unit == "w",
            word.count >= 3, let count = Int(word.dropFirst().dropLast()), count <= 100_000
        else { return nil }
        return (sign == "-" ? -1 : 1) * count * (unit == "w" ? 7 : 1)
    }

    /// `YYYY-MM-DD` or `YYYY-M-D`.
    private static func calendarDate(_ word: String) -> Reading {
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return .unrecognized }
        return CalendarDate(year: year, month: month, day: day).map(Reading.date) ?? .impossible
    }
}

extension CalendarDate {
    /// The date `days` days later (earlier when negative).
    func adding(days: Int) -> CalendarDate { CalendarDate(dayNumber: dayNumber + days) }
}
