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
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// Shows the values of the base's own fields as a person reads them, by the field's type (docs/contract.md "The base's
/// own
/// fields"): currency with its symbol and precision, percent with `%`, checkbox yes/no, rating n/max, lists
/// comma-separated. Without the schema a value is shown by its JSON shape alone.
package struct FieldFormatter {
    /// The projects table's schema, when the token may read it.
    package var table: BaseSchema.Table?
    package var timeZone: Zone = .current
    /// Names of linked records by id, where known; links are shown by id otherwise.
    package var recordNames: [String: String] = [:]

    /// `value` of the field called `name`, for `show` and the table; text from Airtable is not yet made terminal-safe.
    package func text(_ value: JSONValue?, field name: String) -> String? {
        let field = table?.field(named: name)
        guard let value, value != .null else {
            // Airtable leaves an unticked checkbox out of the record.
            return field?.type == "checkbox" ? "no" : nil
        }
        return text(value, as: field?.result ?? field)
    }

    private func text(_ value: JSONValue, as field: BaseSchema.Field?) -> String {
        switch (field?.type ?? "", value) {
        case ("currency", .number(let number)):
            let symbol = field?.symbol ?? ""
            let digits = Self.grouped(abs(number), places: field?.precision ?? 2)
            return (number < 0 ? "-" : "") + symbol + digits
        case ("percent", .number(let number)):
            return Self.grouped(number * 100, places: field?.precision ?? 0) + "%"
        case ("number", .number(let number)):
            return Self.grouped(number, places: field?.precision ?? Self.places(number))
        case ("rating", .number(let number)):
            return "\(Int(number))/\(field?.maximum ?? 5)"
        case ("duration", .number(let seconds)):
            return Self.duration(seconds, format: field?.durationFormat)
        case ("checkbox", .bool(let flag)):
            return flag ? "yes" : "no"
        case ("dateTime", .string(let text)), ("createdTime", .string(let text)),
            ("lastModifiedTime", .string(let text)):
            return localTime(text) ?? text
        case ("multipleRecordLinks", .array(let ids)):
            return ids.map { id in id.stringValue.map { recordNames[$0] ?? $0 } ?? Self.plain(id) }.joined(
                separator: ", ")
        case (_, .array(let items))
        where field?.type == "multipleAttachments" || items.contains { $0["filename"] != nil }:
            // Files with their sizes: `a.png (22 KB), brief.pdf (1.2 MB)`.
            return Attachment.list(value).map { file in
                file.filename + (file.size.map { " (\(ByteCount.text($0)))" } ?? "")
            }.joined(separator: ", ")
        case (_, .array(let items)):
            return items.map { text($0, as: nil) }.joined(separator: ", ")
        case (_, .bool(let flag)):
            return flag ? "yes" : "no"
        case (_, .number(let number)):
            return Self.grouped(number, places: Self.places(number))
        case (_, .object):
            return Self.objectText(value, person: true)
        default:
            return value.stringValue ?? value.serialized()
        }
    }

    /// An instant in the local time zone: `2026-12-01 14:30`.
    private func localTime(_ text: String) -> String? {
        guard let instant = ISOInstant.date(text) else { return nil }
        let (day, seconds) = timeZone.local(instant)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(day) \(two(seconds / 3600)):\(two(seconds / 60 % 60))"
    }

    /// A value in one TSV or CSV cell, in the form `import` reads back: lists separated by `;`, people by email.
    package static func plain(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .bool(let flag): return flag ? "true" : "false"
        case .number: return value.serialized()
        case .string(let text): return text
        case .array(let items): return items.map(plain).joined(separator: ";")
        case .object: return objectText(value, person: false)
        }
    }

    /// The words of an object cell: a person, an attachment's file name, a button's label, a barcode's text.
    private static func objectText(_ value: JSONValue, person: Bool) -> String {
        if let email = value["email"]?.stringValue {
            if person, let name = value["name"]?.stringValue { return "\(name) <\(email)>" }
            return person ? email : email
        }
        if let special = value["specialValue"] { return plain(special) }
        for key in ["name", "text", "filename", "label", "url"] {
            if let text = value[key]?.stringValue { return text }
        }
        return value.serialized()
    }

    /// The decimal places a number needs to be shown exactly (at most 6).
    private static func places(_ number: Double) -> Int {
        var places = 0
        var scaled = number
        while places < 6 && scaled != scaled.rounded() {
            scaled *= 10
            places += 1
        }
        return places
    }

    /// `number` with `places` decimals and a comma every three digits, whatever the locale.
    package static func grouped(_ number: Double, places: Int) -> String {
        let places = min(max(places, 0), 8)
        let factor = pow(10, Double(places))
        let scaled = (abs(number) * factor).rounded()
        guard scaled < 1e17 else { return JSONValue.number(number).serialized() }
        let whole = Int64(scaled / factor)
        let fraction = Int64(scaled - Double(whole) * factor)
        var text = groupedDigits(whole)
        if places > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: max(0, places - digits.count)) + digits
        }
        return (number < 0 && scaled > 0 ? "-" : "") + text
    }

    /// `1234567` as `1,234,567`.
    private static func groupedDigits(_ value: Int64) -> String {
        let digits = String(value)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    /// Seconds as `h:mm` (or `h:mm:ss` when the field's format shows seconds, or the value has them).
    package static func duration(_ seconds: Double, format: String?) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        let mm = minutes < 10 ? "0\(minutes)" : "\(minutes)"
        let showSeconds = (format?.contains("ss") ?? false) || rest != 0
        return showSeconds ? "\(hours):\(mm):\(rest < 10 ? "0\(rest)" : "\(rest)")" : "\(hours):\(mm)"
    }
    /// Each stored value given.
    package init(table: BaseSchema.Table? = nil, timeZone: Zone = .current, recordNames: [String: String] = [:]) {
        self.table = table
        self.timeZone = timeZone
        self.recordNames = recordNames
    }
}
