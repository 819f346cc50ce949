/// The fields of "Design projects" that tracker uses, by its words.
public typealias FieldMap = TableFields<ProjectWord>
/// The fields of "Tasks" that tracker uses, by its words.
public typealias TaskFieldMap = TableFields<TaskWord>

/// How a base records that a record is complete.
public enum CompletionField: Equatable, Sendable {
    /// A checkbox, ticked when complete.
    case checkbox(field: String)
    /// A single select: complete when it holds `done`; reopening sets `open`, or empties it when there is none.
    case select(field: String, done: String, open: String?)

    public var field: String {
        switch self {
        case .checkbox(let field), .select(let field, _, _): field
        }
    }

    /// What marking a record done (true) or reopening it (false) writes: a tick, or the select's choice (emptied on
    /// reopening when no open choice is given).
    public func value(complete: Bool) -> JSONValue {
        switch self {
        case .checkbox: .bool(complete)
        case .select(_, let done, let open): complete ? .string(done) : open.map(JSONValue.string) ?? .null
        }
    }
}

/// One table's words for the fields tracker uses, and what each is in this base: a field by its name, or absent
/// (docs/contract.md "Your base as it is"). Projects and tasks are values of it, so the rules are written once.
public struct TableFields<TableWordType: TableWord>: Equatable, Sendable {
    /// The table's words.
    public typealias Word = TableWordType

    /// How the base records that a record is complete.
    public typealias Completion = CompletionField

    /// The names of the words this base has; a word not here is absent.
    private let present: [Word: String]
    /// The same as a short array, for reading records without hashing.
    public private(set) var namedWords: [(word: Word, name: String)] = []
    /// How completion is stored; nil when the base has no completion field.
    public private(set) var completion: Completion?

    /// A map where each word in `names` is the field so named, and `completion` (if any) says how `complete` is kept.
    init(names: [Word: String], completion: Completion?) {
        var present = names
        present[Word.complete] = completion?.field
        self.present = present
        self.completion = completion
        namedWords = Self.pairs(present)
    }

    private static func pairs(_ present: [Word: String]) -> [(word: Word, name: String)] {
        Word.allCases.compactMap { word in present[word].map { (word, $0) } }
    }

    public static func == (lhs: TableFields, rhs: TableFields) -> Bool {
        lhs.present == rhs.present && lhs.completion == rhs.completion
    }

    /// The template's names, every word present and completion a checkbox.
    public static var template: TableFields {
        TableFields(
            names: Dictionary(uniqueKeysWithValues: Word.allCases.map { ($0, $0.templateName) }),
            completion: .checkbox(field: Word.complete.templateName))
    }

    /// The base's name for the field tracker calls `word`; nil when the base has no such field.
    public subscript(_ word: Word) -> String? { present[word] }

    /// The primary field's name, which a base always has.
    public var name: String { present[Word.name] ?? Word.name.templateName }

    /// Every field tracker reads, in the order it shows them.
    public var names: [String] { Word.allCases.compactMap { present[$0] } }

    /// The words this base lacks.
    public var absent: [Word] { Word.allCases.filter { present[$0] == nil } }

    /// The word for a field name as Airtable quotes it back; formula errors lower-case it.
    public func word(forFieldNamed name: String) -> Word? {
        Word.allCases.first { present[$0] == name }
            ?? Word.allCases.first { present[$0]?.lowercased() == name.lowercased() }
    }

    /// Whether a field is one tracker reads as one of its words (and so not among the base's own fields).
    public func isTrackerField(_ name: String) -> Bool { present.values.contains(name) }

}
