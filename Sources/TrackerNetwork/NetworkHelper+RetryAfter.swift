#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// `Retry-After` as Airtable or a proxy may send it: seconds, or an HTTP date.
extension NetworkHelper {
    /// The seconds a `Retry-After` asks for (at most an hour; a longer one past the retry budget is refused anyway).
    static func parseRetryAfter(_ value: String) -> Double? {
        let trimmed = value.trimmingWhitespace()
        if let seconds = Double(trimmed), seconds >= 0, seconds.isFinite { return min(seconds, 3600) }
        guard let instant = httpDate(trimmed) else { return nil }
        return min(max(0, instant - Date().timeIntervalSince1970), 3600)
    }

    /// Seconds since 1970 of an HTTP date, `Wed, 21 Oct 2015 07:28:00 GMT` (RFC 9110's preferred form).
    static func httpDate(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]),
            let month = months.firstIndex(of: String(parts[2])),
            let date = CalendarDate(year: year, month: month + 1, day: day)
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, clock[0] < 24, clock[1] < 60, clock[2] < 61 else { return nil }
        return Double(date.dayNumber * 86400 + clock[0] * 3600 + clock[1] * 60 + clock[2])
    }
}
