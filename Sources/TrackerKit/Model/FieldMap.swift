/// tracker's words for the fields it uses, and the names this base gives them (cli-spec.md, `"fields"`).
public struct FieldMap: Equatable, Sendable {
    /// A field tracker reads or writes, by the word the secrets file and `--clear` use.
    public enum Word: String, Sendable, CaseIterable {
        case name, category, complete, kickoff, due, lead, team, client, notes

        /// The field's name in Airtable's Project tracker template.
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

        /// The schema API types a field must have for tracker to read and write it.
        public var acceptedTypes: Set<String> {
            switch self {
            case .name: ["singleLineText", "multilineText"]
            case .category: ["singleSelect"]
            case .complete: ["checkbox"]
            case .kickoff, .due: ["date"]
            case .lead: ["singleCollaborator"]
            case .team: ["multipleCollaborators"]
            case .client: ["multipleRecordLinks"]
            case .notes: ["multilineText", "richText", "singleLineText"]
            }
        }
    }

    private var renamed: [Word: String]

    /// The template's names, with `renamed` words called otherwise.
    public init(renamed: [Word: String] = [:]) {
        self.renamed = renamed
    }

    /// The template's names.
    public static let template = FieldMap()

    /// The base's name for the field tracker calls `word`.
    public subscript(_ word: Word) -> String { renamed[word] ?? word.templateName }

    /// Every field tracker reads, in the order it shows them.
    public var names: [String] { Word.allCases.map { self[$0] } }

    /// The word for a field name as Airtable quotes it back; formula errors lower-case it.
    public func word(forFieldNamed name: String) -> Word? {
        Word.allCases.first { self[$0] == name } ?? Word.allCases.first { self[$0].lowercased() == name.lowercased() }
    }

    /// Whether this map renames anything, for messages that show the mapping in use.
    public var isTemplate: Bool { renamed.isEmpty }
}
