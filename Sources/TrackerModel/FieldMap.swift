/// tracker's words for the fields it uses, and what each is in this base: a field by its name, or absent
/// (cli-spec.md "Your base as it is").
public struct FieldMap: Equatable, Sendable {
    /// A field tracker reads or writes, by the word the secrets file and `--clear` use.
    public enum Word: String, Sendable, CaseIterable {
        case name, category, complete, kickoff, due, lead, team, client, notes

        /// The field's name in Airtable's Project tracker template.
        /// The word's place in `allCases`.
        public var position: Int {
            switch self {
            case .name: 0
            case .category: 1
            case .complete: 2
            case .kickoff: 3
            case .due: 4
            case .lead: 5
            case .team: 6
            case .client: 7
            case .notes: 8
            }
        }

        public var templateName: String {
            switch self {
            case .name: "Name"
            case .category: "Category"
            case .complete: "Complete"
            case .kickoff: "Kickoff date"
            case .due: "Due date"
            case .lead: "Project lead"
            case .team: "Project team"
            case .client: "Client"
            case .notes: "Notes"
            }
        }

        /// The schema API types a field must have for tracker to read and write it as this word.
        public var acceptedTypes: Set<String> {
            switch self {
            case .name: ["singleLineText", "multilineText", "email", "url", "phoneNumber"]
            case .category: ["singleSelect"]
            case .complete: ["checkbox", "singleSelect"]
            case .kickoff, .due: ["date"]
            case .lead: ["singleCollaborator"]
            case .team: ["multipleCollaborators"]
            case .client: ["multipleRecordLinks"]
            case .notes: ["multilineText", "richText", "singleLineText"]
            }
        }

        /// The flag that sets this word's field, for messages.
        public var flag: String { self == .client ? "--client" : "--\(rawValue)" }
    }

    /// How the base records that a project is complete.
    public enum Completion: Equatable, Sendable {
        /// A checkbox, ticked when complete.
        case checkbox(field: String)
        /// A single select: complete when it holds `done`; `reopen` sets `open`, or empties it when there is none.
        case select(field: String, done: String, open: String?)

        public var field: String {
            switch self {
            case .checkbox(let field), .select(let field, _, _): field
            }
        }
    }

    /// The names of the words this base has; a word not here is absent.
    private let present: [Word: String]
    /// The same as a short array, for reading records without hashing.
    public private(set) var namedWords: [(word: Word, name: String)] = []
    /// How completion is stored; nil when the base has no completion field.
    public private(set) var completion: Completion?

    /// A map where each word in `names` is the field so named, and `completion` (if any) says how `complete` is kept.
    init(names: [Word: String], completion: Completion?) {
        var present = names
        present[.complete] = completion?.field
        self.present = present
        self.completion = completion
        namedWords = Self.pairs(present)
    }

    private static func pairs(_ present: [Word: String]) -> [(word: Word, name: String)] {
        Word.allCases.compactMap { word in present[word].map { (word, $0) } }
    }

    public static func == (lhs: FieldMap, rhs: FieldMap) -> Bool {
        lhs.present == rhs.present && lhs.completion == rhs.completion
    }

    /// The template's names, every word present and completion a checkbox.
    public static let template = FieldMap(
        names: Dictionary(uniqueKeysWithValues: Word.allCases.map { ($0, $0.templateName) }),
        completion: .checkbox(field: Word.complete.templateName))

    /// The base's name for the field tracker calls `word`; nil when the base has no such field.
    public subscript(_ word: Word) -> String? { present[word] }

    /// The primary field's name, which a base always has.
    public var name: String { present[.name] ?? Word.name.templateName }

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
