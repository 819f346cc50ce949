/// What the secrets file's `"fields"` says about the base: words renamed, words the base lacks (`null`), and
/// completion kept in a single select (`"complete": {"field", "done", "open"}`). A word it does not mention is the
/// template's field, when the table has one.
public typealias FieldSettings = TableSettings<ProjectWord>
/// What the secrets file's `"tasks": {"fields": …}` says about the Tasks table.
public typealias TaskFieldSettings = TableSettings<TaskWord>

/// A single select that says whether a record is complete.
public struct CompletionSelect: Equatable, Sendable {
    public var field: String
    public var done: String
    public var open: String?

    public init(field: String, done: String, open: String?) {
        self.field = field
        self.done = done
        self.open = open
    }
}

/// What the secrets file says about one table's fields, written once for every table tracker reads.
public struct TableSettings<TableWordType: TableWord>: Equatable, Sendable {
    /// The table's words.
    public typealias Word = TableWordType

    public enum Setting: Equatable, Sendable {
        case named(String)
        case absent
    }

    public typealias CompletionSelect = TrackerModel.CompletionSelect

    public var words: [Word: Setting]
    public var completionSelect: CompletionSelect?

    public init(words: [Word: Setting] = [:], completionSelect: CompletionSelect? = nil) {
        self.words = words
        self.completionSelect = completionSelect
    }

    public static var template: TableSettings { TableSettings() }

    /// Whether the file says anything about the fields.
    public var isTemplate: Bool { words.isEmpty && completionSelect == nil }

    /// The map when the schema cannot be read: unmentioned words keep the template's names, and Airtable's answers
    /// reveal a field the table lacks.
    public var assumed: TableFields<TableWordType> {
        var names: [Word: String] = [:]
        for word in Word.allCases {
            switch words[word] {
            case .named(let name)?: names[word] = name
            case .absent?: break
            case nil: names[word] = word.templateName
            }
        }
        if let select = completionSelect {
            return TableFields<TableWordType>(
                names: names, completion: .select(field: select.field, done: select.done, open: select.open))
        }
        return TableFields<TableWordType>(names: names, completion: names[Word.complete].map { .checkbox(field: $0) })
    }

    /// The map for `table` as its schema describes it: an unmentioned template field the table lacks is absent, and
    /// every field named must exist with a type tracker can read. Anything else is a configuration error naming the
    /// field and the fix.
    public func resolve(in table: BaseSchema.Table) throws(AppError) -> TableFields<TableWordType> {
        var names: [Word: String] = [:]
        for word in Word.allCases where word != Word.complete {
            if let name = try resolve(word, in: table) { names[word] = name }
        }
        if let select = completionSelect {
            return TableFields<TableWordType>(names: names, completion: try resolve(select, in: table))
        }
        guard let name = try resolve(Word.complete, in: table), let field = table.field(named: name) else {
            return TableFields<TableWordType>(names: names, completion: nil)
        }
        guard field.type == "checkbox" else {
            let choices = field.choices.map { "\"\($0)\"" }.joined(separator: ", ")
            throw AppError.configuration(
                "the field \"\(name)\" is a single select, so tracker needs to know which choice means complete",
                hint:
                    "Add to \(Word.settingsKey) in the secrets file: \"complete\": {\"field\": \"\(name)\", \"done\": \"<one of \(choices)>\", \"open\": \"<the choice reopen sets>\"}."
            )
        }
        return TableFields<TableWordType>(names: names, completion: .checkbox(field: name))
    }

    private func resolve(_ word: Word, in table: BaseSchema.Table) throws(AppError) -> String? {
        if word == Word.name { return try primaryName(in: table) }
        let name: String
        switch words[word] {
        case .absent?: return nil
        case .named(let named)?:
            guard table.field(named: named) != nil else {
                throw AppError.missingField(word: word.rawValue, field: named, table: table.name)
            }
            name = named
        case nil:
            guard table.field(named: word.templateName) != nil else { return nil }
            name = word.templateName
        }
        let field = table.field(named: name)!
        guard word.acceptedTypes.contains(field.type) else {
            throw AppError.configuration(
                "the field \"\(name)\" is a \(field.type) field, which tracker cannot use as its \"\(word.rawValue)\" (\(word.acceptedTypes.sorted().joined(separator: " or ")))",
                hint:
                    "Map \"\(word.rawValue)\" to a field of that type in \(Word.settingsKey) of the secrets file, or set \"\(word.rawValue)\": null if the base has none."
            )
        }
        return name
    }

    /// `name` is always the table's primary field; a mapping may only say so.
    private func primaryName(in table: BaseSchema.Table) throws(AppError) -> String {
        let primary = table.primaryField?.name ?? Word.name.templateName
        switch words[Word.name] {
        case .absent?:
            throw AppError.configuration(
                "\"name\" cannot be null in \(Word.settingsKey): it is always the table's primary field, \"\(primary)\"",
                hint: "Remove \"name\" from \(Word.settingsKey) in the secrets file.")
        case .named(let named)? where named != primary:
            throw AppError.configuration(
                "\(Word.settingsKey) maps \"name\" to \"\(named)\", but tracker's name is always the table's primary field, \"\(primary)\"",
                hint: "Remove \"name\" from \(Word.settingsKey) in the secrets file, or set it to \"\(primary)\".")
        default:
            return primary
        }
    }

    private func resolve(_ select: CompletionSelect, in table: BaseSchema.Table) throws(AppError) -> CompletionField {
        guard let field = table.field(named: select.field) else {
            throw AppError.missingField(word: "complete", field: select.field, table: table.name)
        }
        guard field.type == "singleSelect" else {
            throw AppError.configuration(
                "\"complete\" names \"\(select.field)\", a \(field.type) field; {\"field\", \"done\"} needs a single select",
                hint: field.type == "checkbox" ? "For a checkbox, write \"complete\": \"\(select.field)\"." : nil)
        }
        func choice(_ value: String, _ key: String) throws(AppError) -> String {
            if let exact = field.choices.first(where: { $0 == value }) { return exact }
            if let folded = field.choices.first(where: { $0.lowercased() == value.lowercased() }) { return folded }
            throw AppError.configuration(
                "\"complete\".\"\(key)\" is \"\(value)\", which is not a choice of \"\(select.field)\" (\(field.choices.map { "\"\($0)\"" }.joined(separator: ", ")))",
                hint: "Set it to one of the choices in \(Word.settingsKey) of the secrets file.")
        }
        let done = try choice(select.done, "done")
        let open: String?
        if let value = select.open { open = try choice(value, "open") } else { open = nil }
        return .select(field: select.field, done: done, open: open)
    }
}
