#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// The names a shell completes at TAB, as tracker last read them: projects (the first 5,000), categories, views, the
/// base's own fields. Kept per endpoint, base and table, with no token in it or its name, so completing needs no
/// secret and sends no request.
package struct NamesFile: Equatable, Sendable {
    package var projects: [String] = []
    package var categories: [String] = []
    package var views: [String] = []
    package var fields: [String] = []
    /// Task names and the people tasks are assigned to (names, else emails), as `tasks` last read them.
    package var tasks: [String] = []
    package var people: [String] = []
    /// The clients' names, as `clients` last read them (the whole table).
    package var clients: [String] = []
    /// Projects' names by record id, as listings and `show` last read them (up to the limit): `show ID` reads the
    /// project's tasks by that name beside its record instead of after it.
    package var projectNames: [String: String] = [:]

    /// The most project names kept.
    package static let projectLimit = 5000

    package init() {}

    /// The file's name for one table of one base.
    package static func fileName(endpoint: URL, baseID: String, table: String) -> String {
        let key = StableHash.of([endpoint.absoluteString, baseID, table].joined(separator: "\u{0}"))
        return "names-\(baseID.filter { $0.isLetter || $0.isNumber })-\(String(key, radix: 16)).json"
    }

    /// `fresh` first, then the names already known that it does not repeat, up to the limit. A listing that read the
    /// whole table replaces the list instead (`replacing`), so deleted projects fall out.
    package mutating func remember(projects fresh: [String], replacing: Bool) {
        projects = Self.merged(fresh, into: projects, replacing: replacing)
    }

    /// Id and name pairs just read; a listing of the whole table replaces them (`replacing`), so deleted projects fall
    /// out. Past the limit, those known before are let go first.
    package mutating func remember(projectIDs fresh: [(id: String, name: String)], replacing: Bool) {
        if replacing { projectNames = [:] }
        for (id, name) in fresh where !name.isEmpty { projectNames[id] = name }
        guard projectNames.count > Self.projectLimit else { return }
        let keep = Set(fresh.suffix(Self.projectLimit).map(\.id))
        for id in projectNames.keys where !keep.contains(id) {
            projectNames[id] = nil
            if projectNames.count <= Self.projectLimit { break }
        }
    }

    /// Task names and assignees, the same way: those just read first, then those known before (up to the limit).
    package mutating func remember(tasks fresh: [String], people freshPeople: [String]) {
        tasks = Self.merged(fresh, into: tasks, replacing: false)
        people = Self.merged(freshPeople, into: people, replacing: false)
    }

    /// The clients' names: `clients` reads the whole table, so the list is replaced.
    package mutating func remember(clients fresh: [String]) {
        clients = Self.merged(fresh, into: clients, replacing: true)
    }

    /// `fresh` first, then `known` names it does not repeat (none when `replacing`), each once, up to the limit.
    private static func merged(_ fresh: [String], into known: [String], replacing: Bool) -> [String] {
        var seen = Set<String>()
        var names: [String] = []
        for name in fresh + (replacing ? [] : known)
        where names.count < projectLimit && !name.isEmpty && seen.insert(name).inserted {
            names.append(name)
        }
        return names
    }

    /// The schema's categories, views and the base's own fields (those not in `trackerFields`).
    package mutating func remember(table: BaseSchema.Table, category: String?, trackerFields: Set<String>) {
        categories = category.flatMap { table.field(named: $0)?.choices } ?? []
        views = table.views.map(\.name)
        fields = table.fields.map(\.name).filter { !trackerFields.contains($0) }
    }

    package var data: Data {
        func list(_ names: [String]) -> JSONValue { .array(names.map(JSONValue.string)) }
        let body = JSONValue.object([
            ("version", .number(1)), ("projects", list(projects)), ("categories", list(categories)),
            ("views", list(views)), ("fields", list(fields)), ("tasks", list(tasks)), ("people", list(people)),
            ("clients", list(clients)),
            ("projectNames", .object(projectNames.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ])
        return Data(body.serialized().utf8)
    }

    package init?(data: Data) {
        guard let body = try? JSONParser.parse(data), body["version"]?.numberValue == 1 else { return nil }
        func list(_ key: String) -> [String] { body[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        (projects, categories, views, fields) = (list("projects"), list("categories"), list("views"), list("fields"))
        (tasks, people, clients) = (list("tasks"), list("people"), list("clients"))
        for (id, name) in body["projectNames"]?.objectMembers ?? [] {
            if let name = name.stringValue { projectNames[id] = name }
        }
    }
}
