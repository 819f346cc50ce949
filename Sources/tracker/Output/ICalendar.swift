#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// Projects' due dates as an iCalendar document (RFC 5545): one all-day event a project, written so that the same
/// projects always give the same bytes (no "now" anywhere) and calendar apps update events instead of adding them.
struct ICalendar {
    /// The base the projects live in: part of every UID and of every event's web address.
    let baseID: String
    /// The table's id (`tbl…`), which the web address needs; nil without the schema, and then no URL is written.
    let tableID: String?
    /// The calendar's name in calendar apps.
    let tableName: String
    /// What every event's UID ends with, and its web address starts with, made once rather than per event.
    private let uidSuffix: String
    private let addressPrefix: String?

    init(baseID: String, tableID: String?, tableName: String) {
        (self.baseID, self.tableID, self.tableName) = (baseID, tableID, tableName)
        uidSuffix = "@" + Self.text(baseID)
        // An address, not TEXT: ids are letters and digits, so nothing in it needs escaping.
        addressPrefix = tableID.map { WebAddress.record(baseID: baseID, tableID: $0, recordID: "") }
    }

    /// `BEGIN:VCALENDAR` and the calendar's properties.
    var header: String {
        var lines = ContentLines()
        for line in [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tracker//Project tracker//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:" + Self.text(tableName),
        ] {
            lines.append(line)
            lines.end()
        }
        return String(decoding: lines.bytes, as: UTF8.self)
    }

    /// `END:VCALENDAR`.
    var footer: String { "END:VCALENDAR\r\n" }

    /// Appends the project's event to `lines`, part by part: a calendar of 50,000 projects builds no String per line
    /// and no list of parts (those were half of its time).
    func appendEvent(_ project: Project, to lines: inout ContentLines) {
        guard let due = project.due else { return }
        lines.appendWhole(Self.beginEvent)
        lines.append("UID:")
        lines.append(Self.text(project.id))
        lines.append(uidSuffix)
        lines.end()
        lines.append("DTSTAMP:")
        Self.appendTimestamp(project.createdTime, to: &lines)
        lines.end()
        lines.append("DTSTART;VALUE=DATE:")
        Self.appendDate(due, to: &lines)
        lines.end()
        lines.append("DTEND;VALUE=DATE:")
        Self.appendDate(CalendarDate(dayNumber: due.dayNumber + 1), to: &lines)
        lines.end()
        lines.append("SUMMARY:")
        lines.append(Self.text(project.name ?? project.id))
        lines.end()
        // Each part escaped alone and joined by an escaped line break, so the common case takes text's fast path.
        lines.append("DESCRIPTION:Status: ")
        lines.append(project.isComplete ? "complete" : "not complete")
        if let lead = project.lead?.displayName {
            lines.append("\\nLead: ")
            lines.append(Self.text(lead))
        }
        if let notes = project.notes, !notes.isEmpty {
            lines.append("\\n\\n")
            lines.append(Self.text(notes))
        }
        lines.end()
        if let addressPrefix {
            lines.append("URL;VALUE=URI:")
            lines.append(addressPrefix)
            lines.append(project.id)
            lines.end()
        }
        lines.appendWhole(Self.endEvent)
    }

    private static let beginEvent = Array("BEGIN:VEVENT\r\n".utf8)
    private static let endEvent = Array("TRANSP:TRANSPARENT\r\nEND:VEVENT\r\n".utf8)

    /// `20261201`.
    static func date(_ date: CalendarDate) -> String {
        String(decoding: date.description.utf8.filter { $0 != UInt8(ascii: "-") }, as: UTF8.self)
    }

    /// Appends `date` as `date(_:)` writes it, eight digits without a String when the year has four.
    private static func appendDate(_ date: CalendarDate, to lines: inout ContentLines) {
        guard (0...9999).contains(date.year) else { return lines.append(Self.date(date)) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8) { digits in
            func put(_ index: Int, _ value: Int) { digits[index] = UInt8(ascii: "0") + UInt8(value % 10) }
            put(0, date.year / 1000)
            put(1, date.year / 100)
            put(2, date.year / 10)
            put(3, date.year)
            put(4, date.month / 10)
            put(5, date.month)
            put(6, date.day / 10)
            put(7, date.day)
            lines.append(UnsafeBufferPointer(digits))
        }
    }

    /// Airtable's `2026-01-01T09:30:00.000Z` as `20260101T093000Z`; the epoch when it is not in that form.
    static func timestamp(_ createdTime: String) -> String {
        var lines = ContentLines()
        appendTimestamp(createdTime, to: &lines)
        return String(decoding: lines.bytes, as: UTF8.self)
    }

    /// Where `2026-01-01T09:30:00` has its fourteen digits.
    private static let timestampDigits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]

    /// Appends `timestamp(createdTime)`'s sixteen bytes, picked from the time's own.
    private static func appendTimestamp(_ createdTime: String, to lines: inout ContentLines) {
        var time = createdTime
        time.withUTF8 { time in
            let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
            // The digits in place, the separators as Airtable writes them.
            guard time.count >= 19, timestampDigits.allSatisfy({ isDigit(time[$0]) }),
                time[4] == UInt8(ascii: "-"), time[7] == UInt8(ascii: "-"), time[10] == UInt8(ascii: "T"),
                time[13] == UInt8(ascii: ":"), time[16] == UInt8(ascii: ":")
            else { return lines.append("19700101T000000Z") }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { stamp in
                for (index, at) in timestampDigits.enumerated() { stamp[index < 8 ? index : index + 1] = time[at] }
                stamp[8] = UInt8(ascii: "T")
                stamp[15] = UInt8(ascii: "Z")
                lines.append(UnsafeBufferPointer(stamp))
            }
        }
    }

    /// A TEXT value: backslash, `;` and `,` escaped, line breaks as `\n`, and no other control character (RFC 5545
    /// allows none in TEXT but the tab); those are shown as tracker shows them on a terminal.
    static func text(_ value: String) -> String {
        // Most names and notes need nothing done: no escape, no line break, no control character.
        if !value.utf8.contains(where: {
            $0 < 0x20 || $0 == 0x7F || $0 == 0x5C || $0 == 0x3B || $0 == 0x2C || $0 >= 0xC2
        })
            || !value.unicodeScalars.contains(where: needsWork)
        {
            return value
        }
        var result = String.UnicodeScalarView()
        var previousWasCarriageReturn = false
        for scalar in value.unicodeScalars {
            defer { previousWasCarriageReturn = scalar == "\r" }
            switch scalar {
            case "\\": result.append(contentsOf: "\\\\".unicodeScalars)
            case ";": result.append(contentsOf: "\\;".unicodeScalars)
            case ",": result.append(contentsOf: "\\,".unicodeScalars)
            case "\r", "\u{2028}", "\u{2029}", "\u{85}": result.append(contentsOf: "\\n".unicodeScalars)
            case "\n" where previousWasCarriageReturn: break
            case "\n": result.append(contentsOf: "\\n".unicodeScalars)
            case "\t": result.append(scalar)
            default:
                if ControlCharacters.isControl(scalar) {
                    ControlCharacters.appendVisible(scalar, to: &result)
                } else {
                    result.append(scalar)
                }
            }
        }
        return String(result)
    }

    /// Whether a scalar of TEXT is escaped or replaced.
    private static func needsWork(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\\", ";", ",", "\u{2028}", "\u{2029}": true
        default: ControlCharacters.isControl(scalar)
        }
    }

}

/// iCalendar content lines as bytes, each written part by part and folded as it goes so that no line is longer
/// than 75 octets: a fold is CRLF and a space, and never falls inside a UTF-8 sequence (RFC 5545 3.1; unfolding
/// restores any character split otherwise).
struct ContentLines {
    private(set) var bytes: [UInt8] = []
    /// Octets on the line being written.
    private var column = 0

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func append(_ part: String) {
        var part = part
        part.withUTF8 { append($0) }
    }

    mutating func append(_ part: UnsafeBufferPointer<UInt8>) {
        var start = 0
        // As much as fits copied at once, cut back to the start of a UTF-8 sequence (continuation octets are
        // 10xxxxxx): per byte, this was a fifth of a 50,000-event calendar's time.
        while part.count - start > 75 - column {
            var cut = start + 75 - column
            while cut > start, part[cut] & 0xC0 == 0x80 { cut -= 1 }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: part[start..<cut]))
            bytes.append(contentsOf: [13, 10, 32])
            // A continuation line starts with the space, which counts.
            column = 1
            start = cut
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: part[start...]))
        column += part.count - start
    }

    /// Ends the line with CRLF.
    mutating func end() {
        bytes.append(13)
        bytes.append(10)
        column = 0
    }

    /// Appends lines already whole and short (`BEGIN:VEVENT` and its CRLF), between lines.
    mutating func appendWhole(_ lines: [UInt8]) { bytes += lines }
}
