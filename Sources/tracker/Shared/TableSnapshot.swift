import Foundation
import TrackerAPI
import TrackerModel

/// What `tracker changes` saw of the table last time: each project's name and the values it compares, as text.
struct TableSnapshot: Equatable {
    /// One project as it was: tracker's fields by word (`due`, `lead`, …) and the base's own fields by name.
    struct Entry: Equatable {
        var id: String
        var name: String
        var words: [String: String]
        var fields: [String: String]
    }

    var baseID: String
    var table: String
    /// The filters and view the listing had; a snapshot taken with others is another snapshot.
    var selection: String
    var entries: [Entry]

    static let words = ["due", "kickoff", "complete", "category", "lead", "team", "client", "notes"]
    /// Fields whose value changes by itself or with any edit: comparing them would report noise.
    static let ignoredTypes: Set<String> = [
        "lastModifiedTime", "lastModifiedBy", "createdTime", "createdBy", "autoNumber", "button",
    ]

    /// `project` as the snapshot keeps it; `formatter` shows the base's own fields as `show` does.
    static func entry(_ project: Project, formatter: FieldFormatter) -> Entry {
        var words: [String: String] = [:]
        func set(_ word: String, _ value: String?) { if let value, !value.isEmpty { words[word] = value } }
        set("due", project.due?.description)
        set("kickoff", project.kickoff?.description)
        set("complete", project.isComplete ? "yes" : nil)
        set("category", project.category)
        set("lead", project.lead?.displayName)
        set("team", project.team.map(\.displayName).joined(separator: ", "))
        set("client", project.clients.map { formatter.recordNames[$0] ?? $0 }.joined(separator: ", "))
        set("notes", project.notes)
        var fields: [String: String] = [:]
        for field in project.otherFields {
            if let type = formatter.table?.field(named: field.name)?.type, ignoredTypes.contains(type) { continue }
            if let text = formatter.text(field.value, field: field.name), !text.isEmpty { fields[field.name] = text }
        }
        return Entry(id: project.id, name: project.name ?? "", words: words, fields: fields)
    }

    // MARK: - The file

    /// The snapshot as JSON: `{"tracker":"changes","version":1,"base":…,"table":…,"selection":…,"projects":[…]}`.
    var data: Data {
        var writer = JSONWriter(capacity: entries.count * 200)
        writer.value(
            .object([
                ("tracker", .string("changes")), ("version", .number(1)), ("base", .string(baseID)),
                ("table", .string(table)), ("selection", .string(selection)),
                (
                    "projects",
                    .array(
                        entries.map { entry in
                            .object([
                                ("id", .string(entry.id)), ("name", .string(entry.name)),
                                (
                                    "words",
                                    .object(entry.words.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
                                ),
                                (
                                    "fields",
                                    .object(entry.fields.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
                                ),
                            ])
                        })
                ),
            ]))
        return Data(writer.text.utf8)
    }

    /// Why a snapshot file cannot be trusted.
    enum Problem: Error, Equatable {
        case corrupt(String)
        case otherTable(String)
    }

    /// Reads a snapshot file written for `baseID`, `table` and `selection`; anything else is refused, never trusted.
    static func read(_ data: Data, baseID: String, table: String, selection: String) throws(Problem) -> TableSnapshot {
        let root: JSONValue
        do { root = try JSONParser.parse(data) } catch { throw .corrupt("not JSON: \(error.message)") }
        guard root["tracker"]?.stringValue == "changes", root["version"]?.numberValue == 1 else {
            throw .corrupt("not a snapshot of tracker changes, version 1")
        }
        guard let base = root["base"]?.stringValue, let name = root["table"]?.stringValue,
            let taken = root["selection"]?.stringValue, let projects = root["projects"]?.arrayValue
        else { throw .corrupt("its base, table, selection or projects are missing") }
        guard base == baseID, name == table, taken == selection else {
            throw .otherTable("it is of base \(base), table \"\(name)\"\(taken.isEmpty ? "" : " (\(taken))")")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(projects.count)
        for (index, project) in projects.enumerated() {
            guard let id = project["id"]?.stringValue, let name = project["name"]?.stringValue,
                let words = strings(project["words"]), let fields = strings(project["fields"])
            else { throw .corrupt("project \(index + 1) is malformed") }
            entries.append(Entry(id: id, name: name, words: words, fields: fields))
        }
        return TableSnapshot(baseID: baseID, table: table, selection: selection, entries: entries)
    }

    private static func strings(_ value: JSONValue?) -> [String: String]? {
        guard let members = value?.objectMembers else { return nil }
        var result: [String: String] = [:]
        for (key, value) in members {
            guard let text = value.stringValue else { return nil }
            result[key] = text
        }
        return result
    }
}
