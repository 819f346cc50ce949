import Foundation
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
        [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tracker//Project tracker//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:" + Self.text(tableName),
        ].map(Self.folded).joined()
    }

    /// `END:VCALENDAR`.
    var footer: String { Self.folded("END:VCALENDAR") }

    /// The project's event, or nothing when it has no due date.
    func event(_ project: Project) -> String {
        guard let due = project.due else { return "" }
        var lines = [
            "BEGIN:VEVENT", "UID:" + Self.text("\(project.id)@\(baseID)"),
            "DTSTAMP:" + Self.timestamp(project.createdTime),
            "DTSTART;VALUE=DATE:" + Self.date(due),
            "DTEND;VALUE=DATE:" + Self.date(CalendarDate(dayNumber: due.dayNumber + 1)),
            "SUMMARY:" + Self.text(project.name ?? project.id),
        ]
        var description = ["Status: " + (project.isComplete ? "complete" : "not complete")]
        if let lead = project.lead?.displayName { description.append("Lead: " + lead) }
        if let notes = project.notes, !notes.isEmpty { description.append("\n" + notes) }
        lines.append("DESCRIPTION:" + Self.text(description.joined(separator: "\n")))
        if let tableID {
            // An address, not TEXT: ids are letters and digits, so nothing in it needs escaping.
            lines.append("URL;VALUE=URI:https://airtable.com/\(baseID)/\(tableID)/\(project.id)")
        }
        lines.append("TRANSP:TRANSPARENT")
        lines.append("END:VEVENT")
        return lines.map(Self.folded).joined()
    }

    /// `20261201`.
    static func date(_ date: CalendarDate) -> String {
        date.description.filter { $0 != "-" }
    }

    /// Airtable's `2026-01-01T09:30:00.000Z` as `20260101T093000Z`; the epoch when it is not in that form.
    static func timestamp(_ createdTime: String) -> String {
        let digits = createdTime.prefix(19).filter(\.isNumber)
        guard digits.count == 14, createdTime.count >= 19 else { return "19700101T000000Z" }
        return String(digits.prefix(8)) + "T" + String(digits.suffix(6)) + "Z"
    }

    /// A TEXT value: backslash, `;` and `,` escaped, line breaks as `\n`, and no other control character (RFC 5545
    /// allows none in TEXT but the tab); those are shown as tracker shows them on a terminal.
    static func text(_ value: String) -> String {
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

    /// One content line ending in CRLF, folded so that no line is longer than 75 octets: a fold is CRLF and a space,
    /// and never falls inside a UTF-8 sequence (nor, where it can be helped, inside a grapheme cluster).
    static func folded(_ line: String) -> String {
        guard line.utf8.count > 75 else { return line + "\r\n" }
        var result = ""
        var current = ""
        var currentOctets = 0
        var limit = 75
        for character in line {
            let octets = character.utf8.count
            if currentOctets + octets > limit && currentOctets > 0 {
                result += current + "\r\n "
                current = ""
                currentOctets = 0
                // A continuation line starts with the space, which counts.
                limit = 74
            }
            if octets > limit {
                // A cluster longer than a line (a long run of combining marks): split between its scalars.
                for scalar in character.unicodeScalars {
                    let size = String(scalar).utf8.count
                    if currentOctets + size > limit {
                        result += current + "\r\n "
                        current = ""
                        currentOctets = 0
                        limit = 74
                    }
                    current.unicodeScalars.append(scalar)
                    currentOctets += size
                }
                continue
            }
            current.append(character)
            currentOctets += octets
        }
        return result + current + "\r\n"
    }
}
