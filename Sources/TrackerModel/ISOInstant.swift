#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Instants as Airtable writes them: ISO 8601 in UTC, `2026-12-01T14:30:00.000Z`.
public enum ISOInstant {
    /// The instant `text` names, with or without fractional seconds; nil when it is not ISO 8601 with a zone.
    public static func date(_ text: String) -> Date? {
        if let instant = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return instant }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// `date` to the second, `2026-11-29T11:08:06Z`: a log line's time.
    public static func secondsText(_ date: Date) -> String { Date.ISO8601FormatStyle().format(date) }

    /// `date` with milliseconds, as Airtable writes times.
    public static func text(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
