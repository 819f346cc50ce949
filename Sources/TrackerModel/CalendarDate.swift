#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A date with no time or zone, as Airtable's date-only fields hold it: `YYYY-MM-DD`.
public struct CalendarDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Parses a strict `YYYY-MM-DD` that names a real day of the Gregorian calendar (2026-02-30 does not).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Makes a date from its parts, or nil when they name no real day.
    public init?(year: Int, month: Int, day: Int) {
        guard year >= 1, (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The calendar date of `instant` as seen in `zone`.
    public init(_ instant: Date, in zone: Zone) {
        self = zone.local(instant).date
    }

    public var description: String {
        guard (0...9999).contains(year) else {
            let y = String(year)
            return y + "-" + (month < 10 ? "0" : "") + String(month) + "-" + (day < 10 ? "0" : "") + String(day)
        }
        // Ten bytes written directly (a small string, no allocation): listings print two dates a project.
        func digit(_ value: Int) -> UInt8 { UInt8(ascii: "0") + UInt8(value % 10) }
        let bytes: [UInt8] = [
            digit(year / 1000), digit(year / 100), digit(year / 10), digit(year), UInt8(ascii: "-"),
            digit(month / 10), digit(month), UInt8(ascii: "-"), digit(day / 10), digit(day),
        ]
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The date `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int) {
        // Howard Hinnant's civil_from_days.
        let z = dayNumber + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01, for differences between dates.
    public var dayNumber: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    /// Whole days from `self` to `other` (positive when `other` is later).
    public func days(until other: CalendarDate) -> Int { other.dayNumber - dayNumber }

    /// 0 for Monday … 6 for Sunday (1970-01-01 was a Thursday).
    public var weekdayIndex: Int { ((dayNumber % 7) + 7 + 3) % 7 }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool { lhs.dayNumber < rhs.dayNumber }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension CalendarDate {
    /// How far `self` lies from `today` in words: "today", "tomorrow", "in 3 days", "2 weeks ago".
    public func relative(to today: CalendarDate) -> String {
        let days = today.days(until: self)
        switch days {
        case 0: return "today"
        case 1: return "tomorrow"
        case -1: return "yesterday"
        default: break
        }
        let magnitude = abs(days)
        let (count, unit): (Int, String) =
            switch magnitude {
            case ..<14: (magnitude, "day")
            case ..<60: (magnitude / 7, "week")
            case ..<730: (magnitude / 30, "month")
            default: (magnitude / 365, "year")
            }
        let phrase = "\(count) \(unit)\(count == 1 ? "" : "s")"
        return days > 0 ? "in \(phrase)" : "\(phrase) ago"
    }
}
