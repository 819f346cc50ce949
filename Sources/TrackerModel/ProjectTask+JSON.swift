extension ProjectTask {
    /// The stable JSON task object of docs/contract.md: every key present, `project` the first linked project as the
    /// caller knows it (nil: not read, or none), then the base's own fields as Airtable returned them.
    public func writeJSON(
        project: (name: String?, due: CalendarDate?, status: ProjectStatus)?, to json: inout JSONWriter
    ) {
        json.raw("{\"id\":")
        json.string(id)
        json.raw(",\"name\":")
        json.string(or: name)
        json.raw(",\"project\":")
        if let first = projects.first, let project {
            json.raw("{\"id\":")
            json.string(first)
            json.raw(",\"name\":")
            json.string(or: project.name)
            json.raw(",\"due\":")
            json.string(or: project.due?.description)
            json.raw(",\"status\":")
            json.string(project.status.rawValue)
            json.raw("}")
        } else {
            json.raw("null")
        }
        json.raw(",\"projects\":[")
        for (index, id) in projects.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(id)
        }
        json.raw(isComplete ? "],\"complete\":true,\"estimate\":" : "],\"complete\":false,\"estimate\":")
        if let estimate { json.value(.number(estimate)) } else { json.raw("null") }
        json.raw(",\"assignee\":")
        if let assignee { assignee.write(to: &json, withID: true) } else { json.raw("null") }
        json.raw(",\"notes\":")
        json.string(or: notes)
        json.raw(",\"createdTime\":")
        json.string(createdTime)
        json.raw(",\"fields\":")
        otherFields.writeJSON(to: &json)
        json.raw("}")
    }

    /// Days as people write them: `2.5`, `1`.
    public static func days(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
