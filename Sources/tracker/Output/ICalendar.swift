#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel

/// Projects' due dates as an iCalendar document (RFC 5545): one all-day event a project, written so that the same
/// projects always give the same bytes (no "now" anywhere) and calendar apps update events instead of adding them.
struct ICalendar {
    /// The base the projects live in: part of every UID and of every event's web address.
    var baseID: String
    /// The table's id (`tbl…`), which the web address needs; nil without the schema, and then no URL is written.
    var tableID: String?
    /// The calendar's name in calendar apps.
    var tableName: String

    /// `BEGIN:VCALENDAR` and the calendar's properties.
    var header: String {
        var out: [UInt8] = []
        for line in [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tracker//Project tracker//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:" + Self.text(tableName),
        ] {
            Self.appendLine([line], to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `END:VCALENDAR`.
    var footer: String { "END:VCALENDAR\r\n" }

    /// Appends the project's event to `out` as bytes (a listing of 50,000 projects builds no String per line).
    func appendEvent(_ project: Project, to out: inout [UInt8]) {
        guard let due = project.due else { return }
        out += Self.beginEvent
        Self.appendLine(["UID:", Self.text(project.id), "@", Self.text(baseID)], to: &out)
        Self.appendLine(["DTSTAMP:", Self.timestamp(project.createdTime)], to: &out)
        Self.appendLine(["DTSTART;VALUE=DATE:", Self.date(due)], to: &out)
        Self.appendLine(["DTEND;VALUE=DATE:", Self.date(CalendarDate(dayNumber: due.dayNumber + 1))], to: &out)
        Self.appendLine(["SUMMARY:", Self.text(project.name ?? project.id)], to: &out)
        // Each part escaped alone and joined by an escaped line break, so the common case takes text's fast path.
        var description = ["DESCRIPTION:Status: ", project.isComplete ? "complete" : "not complete"]
        if let lead = project.lead?.displayName { description += ["\\nLead: ", Self.text(lead)] }
        if let notes = project.notes, !notes.isEmpty { description += ["\\n\\n", Self.text(notes)] }
        Self.appendLine(description, to: &out)
        if let tableID {
            // An address, not TEXT: ids are letters and digits, so nothing in it needs escaping.
            Self.appendLine(
                ["URL;VALUE=URI:", WebAddress.record(baseID: baseID, tableID: tableID, recordID: project.id)], to: &out)
        }
        out += Self.endEvent
    }

    private static let beginEvent = Array("BEGIN:VEVENT\r\n".utf8)
    private static let endEvent = Array("TRANSP:TRANSPARENT\r\nEND:VEVENT\r\n".utf8)

    /// `20261201`.
    static func date(_ date: CalendarDate) -> String {
        String(decoding: date.description.utf8.filter { $0 != UInt8(ascii: "-") }, as: UTF8.self)
    }

    /// Airtable's `2026-01-01T09:30:00.000Z` as `20260101T093000Z`; the epoch when it is not in that form.
    static func timestamp(_ createdTime: String) -> String {
        let head = createdTime.utf8.prefix(19)
        let digits = head.filter { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard digits.count == 14, head.count == 19 else { return "19700101T000000Z" }
        return String(decoding: digits.prefix(8), as: UTF8.self) + "T"
            + String(decoding: digits.suffix(6), as: UTF8.self)
            + "Z"
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

    /// Appends the line made of `parts` to `out` in one pass over the bytes, ending in CRLF and folded so that no
    /// line is longer than 75 octets: a fold is CRLF and a space, and never falls inside a UTF-8 sequence (RFC 5545
    /// 3.1; unfolding restores any character split otherwise).
    static func appendLine(_ parts: [String], to out: inout [UInt8]) {
        var column = 0
        for part in parts {
            // Most parts fit whole: copied at once (per byte, this was a fifth of a 50,000-event calendar's time).
            let count = part.utf8.count
            if column + count <= 75 {
                out.append(contentsOf: part.utf8)
                column += count
                continue
            }
            for byte in part.utf8 {
                // A sequence's first octet says how long it is; continuation octets (10xxxxxx) follow it.
                if byte & 0xC0 != 0x80 {
                    let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                    if column + length > 75 {
                        out.append(13)
                        out.append(10)
                        out.append(32)
                        // A continuation line starts with the space, which counts.
                        column = 1
                    }
                }
                out.append(byte)
                column += 1
            }
        }
        out.append(13)
        out.append(10)
    }
}
