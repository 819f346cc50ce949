#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value given for one of the base's fields, read by the field's type. Most are ready to send; selects, people and
/// links still need to be matched against the base's choices and records.
public enum TypedValue: Equatable, Sendable {
    case ready(JSONValue)
    /// A single select's choice, as typed.
    case choice(String)
    /// A multiple select's choices, as typed.
    case choices([String])
    /// Collaborators by email or name; `multiple` for a multiple-collaborator field.
    case people([String], multiple: Bool)
    /// Linked records of the table `table`, by primary-field text or record id.
    case links([String], table: String)
}

/// Why a value does not fit its field: a phrase such as `"abc" is not a number, e.g. 3 or 2.5`.
public struct FieldProblem: Error, Equatable {
    public var message: String
}

/// Reads values for the base's fields by type (docs/contract.md "Your base as it is").
public enum FieldInput {
    /// Whether tracker can write a field of this type; nil when it can, else why not.
    public static func refusal(_ field: BaseSchema.Field) -> String? {
        if field.isComputed { return "\(field.name) is a \(typeName(field.type)) field, which Airtable computes" }
        switch field.type {
        case "multipleAttachments": return "\(field.name) is an attachments field, which tracker cannot set"
        case let type where !writableTypes.contains(type):
            return "\(field.name) is a \(typeName(type)) field, which tracker cannot set"
        default: return nil
        }
    }

    static let writableTypes: Set<String> = [
        "singleLineText", "multilineText", "richText", "email", "url", "phoneNumber", "number", "currency", "percent",
        "rating", "duration", "checkbox", "date", "dateTime", "singleSelect", "multipleSelects", "singleCollaborator",
        "multipleCollaborators", "multipleRecordLinks", "barcode",
    ]

    /// The value `text` gives `field`; `separator` splits lists (`,` on the command line, `;` in an import cell).
    public static func read(
        _ text: String, for field: BaseSchema.Field, separator: Character = ",", today: CalendarDate,
        timeZone: Zone
    ) -> Result<TypedValue, FieldProblem> {
        if let refusal = refusal(field) { return .failure(FieldProblem(message: refusal)) }
        let trimmed = text.trimmingWhitespace()
        func fail(_ form: String) -> Result<TypedValue, FieldProblem> {
            .failure(FieldProblem(message: "\"\(text)\" is not \(form)"))
        }
        func list() -> [String] {
            text.split(separator: separator).map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        }
        switch field.type {
        case "singleLineText", "email", "url", "phoneNumber", "barcode":
            if let control = firstControl(text, allowingLineBreaks: false) {
                return .failure(FieldProblem(message: "holds a control character (\(control)); it must be one line"))
            }
            switch field.type {
            case "email" where !isEmail(trimmed): return fail("an email address, e.g. ana@example.com")
            case "url" where !isURL(trimmed): return fail("a URL, e.g. https://example.com/brief")
            case "phoneNumber" where !isPhone(trimmed): return fail("a phone number, e.g. +1 415 555 0100")
            case "barcode": return .success(.ready(.object([("text", .string(text))])))
            default: return .success(.ready(.string(field.type == "singleLineText" ? text : trimmed)))
            }
        case "multilineText", "richText":
            if let control = firstControl(text, allowingLineBreaks: true) {
                return .failure(
                    FieldProblem(message: "holds a control character (\(control)); only newlines and tabs are allowed"))
            }
            return .success(.ready(.string(text)))
        case "number":
            guard let number = number(trimmed) else { return fail("a number, e.g. 3 or 2.5") }
            return .success(.ready(.number(number)))
        case "currency":
            guard let amount = amount(trimmed, symbol: field.symbol) else {
                return fail("an amount, e.g. 1250 or \(field.symbol ?? "$")1,250.50")
            }
            return .success(.ready(.number(amount)))
        case "percent":
            guard let fraction = percent(trimmed) else { return fail("a percentage, e.g. 12% or 0.12") }
            return .success(.ready(.number(fraction)))
        case "rating":
            let maximum = field.maximum ?? 5
            guard let value = Int(trimmed), (1...maximum).contains(value) else {
                return fail("a rating from 1 to \(maximum)")
            }
            return .success(.ready(.number(Double(value))))
        case "duration":
            guard let seconds = duration(trimmed) else { return fail("a duration: seconds, or h:mm, or h:mm:ss") }
            return .success(.ready(.number(seconds)))
        case "checkbox":
            switch trimmed.lowercased() {
            case "yes", "true", "1": return .success(.ready(.bool(true)))
            case "no", "false", "0": return .success(.ready(.bool(false)))
            default: return fail("yes, no, true, false, 1 or 0")
            }
        case "date":
            switch DateInput.read(trimmed, today: today) {
            case .date(let date): return .success(.ready(.string(date.description)))
            case .impossible: return fail("a real date")
            case .unrecognized: return fail("a date: \(DateInput.forms)")
            }
        case "dateTime":
            guard let instant = dateTime(trimmed, today: today, timeZone: timeZone) else {
                return fail("a date and time, e.g. 2026-12-01T14:30 (local time), 2026-12-01T14:30:00Z, or a date")
            }
            return .success(.ready(.string(instant)))
        case "singleSelect":
            return .success(.choice(trimmed))
        case "multipleSelects":
            return .success(.choices(list()))
        case "singleCollaborator", "multipleCollaborators":
            let people = list()
            if field.type == "singleCollaborator" && people.count != 1 {
                return fail("one collaborator, by email or name")
            }
            return .success(.people(people, multiple: field.type == "multipleCollaborators"))
        case "multipleRecordLinks":
            guard let table = field.linkedTableID else { return fail("a link tracker can follow") }
            return .success(.links(list(), table: table))
        default:
            return fail("a value tracker can write")
        }
    }

    /// The value a JSON cell gives `field` (an import row as `list --format ndjson` writes it): text is read as typed,
    /// numbers, flags and lists must already have the field's shape.
    public static func read(
        json value: JSONValue, for field: BaseSchema.Field, today: CalendarDate, timeZone: Zone
    ) -> Result<TypedValue, FieldProblem> {
        if let refusal = refusal(field) { return .failure(FieldProblem(message: refusal)) }
        func fail(_ form: String) -> Result<TypedValue, FieldProblem> {
            .failure(FieldProblem(message: "\(value.serialized()) is not \(form)"))
        }
        switch (value, field.type) {
        case (.string(let text), _):
            return read(text, for: field, separator: ";", today: today, timeZone: timeZone)
        case (.number(let number), "number"), (.number(let number), "currency"), (.number(let number), "percent"),
            (.number(let number), "duration"):
            return .success(.ready(.number(number)))
        case (.number(let number), "rating"):
            let maximum = field.maximum ?? 5
            guard number == number.rounded(), (1...Double(maximum)).contains(number) else {
                return fail("a rating from 1 to \(maximum)")
            }
            return .success(.ready(.number(number)))
        case (.bool(let flag), "checkbox"):
            return .success(.ready(.bool(flag)))
        case (.object, "barcode"):
            return value["text"]?.stringValue.map { .success(.ready(.object([("text", .string($0))]))) }
                ?? fail("a barcode")
        case (.object, "singleCollaborator"):
            return person(value).map { .success(.people([$0], multiple: false)) } ?? fail("a collaborator")
        case (.array(let items), "multipleCollaborators"):
            let people = items.compactMap(person)
            return people.count == items.count ? .success(.people(people, multiple: true)) : fail("collaborators")
        case (.array(let items), "multipleSelects"):
            let names = items.compactMap(\.stringValue)
            return names.count == items.count ? .success(.choices(names)) : fail("a list of choices")
        case (.array(let items), "multipleRecordLinks"):
            let ids = items.compactMap(\.stringValue)
            guard ids.count == items.count, let table = field.linkedTableID else { return fail("a list of record ids") }
            return .success(.links(ids, table: table))
        default:
            return fail("a value of a \(typeName(field.type)) field")
        }
    }

    /// How a person is named in a JSON cell: their email, else their name.
    private static func person(_ value: JSONValue) -> String? {
        value["email"]?.stringValue ?? value["name"]?.stringValue
    }

    // MARK: - Forms

    /// A plain decimal number, optionally with thousands commas (`1,250.5`); never `nan`, `inf` or hex.
    static func number(_ text: String) -> Double? {
        var digits = text
        if isGroupedWithCommas(digits) { digits.removeAll { $0 == "," } }
        let allowed = Set("0123456789.-+eE")
        guard !digits.isEmpty, digits.allSatisfy(allowed.contains), digits.contains(where: \.isNumber),
            let value = Double(digits), value.isFinite
        else { return nil }
        return value
    }

    /// `1,250` and `12,345,678.9`: commas only between groups of three, so `12,5` is refused, not read as 125.
    private static func isGroupedWithCommas(_ text: String) -> Bool {
        guard text.contains(",") else { return false }
        let unsigned = text.hasPrefix("-") ? String(text.dropFirst()) : text
        let whole = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let groups = whole.split(separator: ",", omittingEmptySubsequences: false)
        guard let first = groups.first, (1...3).contains(first.count) else { return false }
        return groups.dropFirst().allSatisfy { $0.count == 3 } && groups.allSatisfy { $0.allSatisfy(\.isNumber) }
    }

    /// An amount with an optional currency symbol before or after it: `$1,250.50`, `-$5`, `12 €`.
    static func amount(_ text: String, symbol: String?) -> Double? {
        var rest = text.replacing(" ", with: "")
        var negative = false
        if rest.hasPrefix("-") {
            negative = true
            rest.removeFirst()
        }
        for mark in [symbol, "$", "€", "£", "¥"].compactMap({ $0 }) where !mark.isEmpty {
            if rest.hasPrefix(mark) {
                rest.removeFirst(mark.count)
                break
            }
            if rest.hasSuffix(mark) {
                rest.removeLast(mark.count)
                break
            }
        }
        if rest.hasPrefix("-") && !negative {
            negative = true
            rest.removeFirst()
        }
        guard !rest.hasPrefix("-"), let value = number(rest) else { return nil }
        return negative ? -value : value
    }

    /// `12%` is 0.12; a bare number is the fraction itself (`0.12`).
    static func percent(_ text: String) -> Double? {
        if text.hasSuffix("%") {
            return number(String(text.dropLast()).trimmingWhitespace()).map { $0 / 100 }
        }
        return number(text)
    }

    /// Seconds, or `h:mm`, `h:mm:ss`, `h:mm:ss.s`.
    static func duration(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 1 { return number(text).flatMap { $0 >= 0 ? $0 : nil } }
        guard (2...3).contains(parts.count), let hours = Int(parts[0]), hours >= 0, parts[1].count == 2,
            let minutes = Int(parts[1]), (0..<60).contains(minutes)
        else { return nil }
        var seconds = 0.0
        if parts.count == 3 {
            guard parts[2].count >= 2, let value = Double(parts[2]), value >= 0, value < 60,
                parts[2].allSatisfy({ $0.isNumber || $0 == "." })
            else { return nil }
            seconds = value
        }
        return Double(hours * 3600 + minutes * 60) + seconds
    }

    /// An instant as Airtable stores it (`2026-12-01T14:30:00.000Z`): ISO 8601 with a zone, a local date and time, or
    /// any DATE form (midnight, local).
    static func dateTime(_ text: String, today: CalendarDate, timeZone: Zone) -> String? {
        if let instant = ISOInstant.date(text) { return ISOInstant.text(instant) }
        let normalised = text.replacing(" ", with: "T")
        let pieces = normalised.split(separator: "T", maxSplits: 1).map(String.init)
        let day: CalendarDate
        switch DateInput.read(pieces[0], today: today) {
        case .date(let date): day = date
        default: return nil
        }
        var seconds = 0
        if pieces.count == 2 {
            let clock = pieces[1].split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(clock.count), let hour = Int(clock[0]), (0..<24).contains(hour),
                clock[1].count == 2, let minute = Int(clock[1]), (0..<60).contains(minute)
            else { return nil }
            seconds = hour * 3600 + minute * 60
            if clock.count == 3 {
                guard clock[2].count == 2, let second = Int(clock[2]), (0..<60).contains(second) else { return nil }
                seconds += second
            }
        }
        return ISOInstant.text(timeZone.instant(day, seconds: seconds))
    }

    /// Whether `text` has an email address's shape: one `@`, no spaces, a dotted domain.
    public static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(where: \.isWhitespace) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }

    static func isURL(_ text: String) -> Bool {
        guard !text.isEmpty, !text.contains(where: \.isWhitespace) else { return false }
        let withScheme = text.contains("://") ? text : "https://" + text
        guard let url = URL(string: withScheme), let host = url.host, !host.isEmpty, url.scheme != nil else {
            return false
        }
        return text.contains("://") || host.contains(".")
    }

    static func isPhone(_ text: String) -> Bool {
        let allowed = Set("0123456789+-(). /x")
        let digits = text.filter(\.isNumber).count
        return digits >= 3 && text.lowercased().allSatisfy(allowed.contains)
    }

    /// The first control character of `text` as shown in messages, if it has one.
    static func firstControl(_ text: String, allowingLineBreaks: Bool) -> String? {
        text.unicodeScalars.first { scalar in
            if allowingLineBreaks && (scalar == "\n" || scalar == "\t") { return false }
            return ControlCharacters.isControl(scalar)
        }.map(ControlCharacters.visible)
    }

    /// A schema type in words: `multipleSelects` → "multiple select".
    static func typeName(_ type: String) -> String {
        switch type {
        case "singleLineText": "single line text"
        case "multilineText": "long text"
        case "richText": "rich text"
        case "phoneNumber": "phone number"
        case "singleSelect": "single select"
        case "multipleSelects": "multiple select"
        case "singleCollaborator": "collaborator"
        case "multipleCollaborators": "multiple collaborator"
        case "multipleRecordLinks": "link"
        case "multipleAttachments": "attachments"
        case "multipleLookupValues": "lookup"
        case "autoNumber": "autonumber"
        case "createdTime": "created time"
        case "lastModifiedTime": "last modified time"
        case "createdBy": "created by"
        case "lastModifiedBy": "last modified by"
        case "dateTime": "date and time"
        case "externalSyncSource": "sync source"
        case "aiText": "AI text"
        default: type
        }
    }
}
