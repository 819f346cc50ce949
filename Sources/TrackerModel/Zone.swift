#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where clocks are read: the user's own time zone (as the C library finds it: `TZ`, else /etc/localtime) or one named
/// in the tz database, and the offset from UTC it has at any instant, summer time included.
///
/// Not Foundation's `Zone`: without the ICU part of Foundation (tens of megabytes of a static binary, and time at
/// every start: the benchmark README measures both) it knows only GMT. The C library reads the same tz database.
public struct Zone: Equatable, Sendable {
    /// nil for the process's own zone.
    public let identifier: String?

    /// The user's zone.
    public static let current = Zone(checked: nil)
    public static let utc = Zone(checked: "UTC")

    private init(checked identifier: String?) { self.identifier = identifier }

    /// A zone of the tz database (`Europe/Paris`), or nil when this machine does not have it.
    public init?(identifier: String) {
        guard !identifier.isEmpty, !identifier.contains(".."), !identifier.hasPrefix("/") else { return nil }
        let known =
            identifier == "UTC" || identifier == "GMT"
            || ["/usr/share/zoneinfo/", "/var/db/timezone/zoneinfo/"].contains { access($0 + identifier, R_OK) == 0 }
        guard known else { return nil }
        self.identifier = identifier
    }

    /// Seconds east of UTC at `instant`.
    public func secondsFromGMT(for instant: Date) -> Int {
        var time = time_t(instant.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard let identifier else {
            localtime_r(&time, &parts)
            return Int(parts.tm_gmtoff)
        }
        if identifier == "UTC" || identifier == "GMT" { return 0 }
        // The C library reads one zone at a time, from TZ: switched under a lock, and put back.
        return Self.switching.withLock {
            let saved = getenv("TZ").map { String(cString: $0) }
            setenv("TZ", identifier, 1)
            tzset()
            localtime_r(&time, &parts)
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
            return Int(parts.tm_gmtoff)
        }
    }

    /// The date and the seconds since midnight that clocks here show at `instant`.
    public func local(_ instant: Date) -> (date: CalendarDate, seconds: Int) {
        let local = Int(instant.timeIntervalSince1970.rounded(.down)) + secondsFromGMT(for: instant)
        let seconds = ((local % 86400) + 86400) % 86400
        return (CalendarDate(dayNumber: (local - seconds) / 86400), seconds)
    }

    /// The instant clocks here show `seconds` past midnight on `date` (across a change of summer time, the offset of
    /// the hour before it).
    public func instant(_ date: CalendarDate, seconds: Int = 0) -> Date {
        let wall = date.dayNumber * 86400 + seconds
        let guess = wall - secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall)))
        return Date(
            timeIntervalSince1970: Double(wall - secondsFromGMT(for: Date(timeIntervalSince1970: Double(guess)))))
    }

    private static let switching = ZoneLock()
}

/// A mutex for switching `TZ` (TrackerModel has no lock of its own below TrackerSystem).
private final class ZoneLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(mutex, nil) }
    func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
