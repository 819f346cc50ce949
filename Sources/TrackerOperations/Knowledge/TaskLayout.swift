import TrackerAPI
import TrackerModel

/// The Tasks table as one command sees it (docs/contract.md "Tasks"): where it is, which field each of the tasks' words
/// is, and the projects' field that lists a project's tasks.
package struct TaskLayout: Sendable {
    /// The table as the records routes take it: its id when the schema gave one (a rename cannot break it), else its
    /// name.
    package var route: String
    /// The table's name, for messages.
    package var name: String
    package var fields: TaskFieldMap
    /// The table's schema; nil without schema access.
    package var table: BaseSchema.Table?
    /// The projects' link field to this table ("Tasks" in the template); nil when the projects table has none.
    package var projectsLink: String?

    /// What the API client needs to read and write the table.
    package var client: TaskTable { TaskTable(route: route, name: name, fields: fields) }

    /// The layout the secrets file and the schema give; nil when the base has no Tasks table or the file says so.
    ///
    /// With the schema, the table is the one the projects' "Tasks" link field points to (found by its id, so a renamed
    /// table is still found), else a table named "Tasks"; the file's `"table"` overrides both. Without the schema, the
    /// file's names or the template's are taken as they are, and Airtable's answers judge them.
    package static func resolve(_ settings: TasksSettings, projects: BaseSchema.Table?, schema: BaseSchema?) throws
        -> TaskLayout?
    {
        guard case .table(let named, let fieldSettings) = settings else { return nil }
        let template = "Tasks"
        guard let schema else {
            return TaskLayout(
                route: named ?? template, name: named ?? template, fields: fieldSettings.assumed, table: nil,
                projectsLink: projects == nil ? template : nil)
        }
        let links = projects?.fields.filter { $0.type == "multipleRecordLinks" } ?? []
        let table: BaseSchema.Table?
        if let named {
            guard
                let found = schema.table(named)
                    ?? schema.tables.first(where: { $0.name.lowercased() == named.lowercased() })
            else {
                throw AppError.configuration(
                    "\"tasks\".\"table\" names \"\(named)\", but the base has no such table; its tables are \(schema.tables.map { "\"\($0.name)\"" }.joined(separator: ", "))",
                    hint: "Set \"tasks\".\"table\" in the secrets file to one of them, or \"tasks\": null.")
            }
            table = found
        } else if let link = links.first(where: { $0.name == template }), let id = link.linkedTableID {
            table = schema.table(id)
        } else {
            table = schema.table(template)
        }
        guard let table, table.id != projects?.id else { return nil }
        let fields = try fieldSettings.resolve(in: table)
        let back = links.filter { $0.linkedTableID == table.id }
        return TaskLayout(
            route: table.id, name: table.name, fields: fields, table: table,
            projectsLink: (back.first { $0.name == template } ?? back.first)?.name)
    }
}

extension TableLayout {
    /// The Tasks table, or the configuration error every task command gives when the base has none.
    package func requireTasks(_ settings: TasksSettings) throws -> TaskLayout {
        if let tasks { return tasks }
        if let tasksProblem { throw tasksProblem }
        if case .absent = settings {
            throw AppError.configuration(
                "the secrets file says this base has no Tasks table (\"tasks\": null)",
                hint: "Remove \"tasks\" from the secrets file, or name the table: \"tasks\": {\"table\": \"Tasks\"}.")
        }
        throw AppError.configuration(
            "the base has no Tasks table: no table is linked from the projects' \"Tasks\" field or named \"Tasks\"",
            hint: "Name it in the secrets file: \"tasks\": {\"table\": \"To-dos\"}; 'tracker doctor' lists the tables.")
    }
}
