extension ProjectTask {
    /// The stable JSON task object of docs/contract.md: every key present, `project` the first linked project as the
    /// caller knows it (nil: not read, or none), then the base's own fields as Airtable returned them.
    public func writeJSON<Sink: JSONSink>(
        project: (name: String?, due: CalendarDate?, status: ProjectStatus)?, to json: inout Sink
    ) {
        json.beginObject()
        json.key("id")
        json.string(id)
        json.key("name")
        json.string(or: name)
        json.key("project")
        if let first = projects.first, let project {
            json.beginObject()
            json.key("id")
            json.string(first)
            json.key("name")
            json.string(or: project.name)
            json.key("due")
            json.string(or: project.due?.description)
            json.key("status")
            json.string(project.status.rawValue)
            json.endObject()
        } else {
            json.null()
        }
        json.key("projects")
        json.beginArray()
        for id in projects { json.string(id) }
        json.endArray()
        json.key("complete")
        json.bool(isComplete)
        json.key("estimate")
        if let estimate { json.number(estimate) } else { json.null() }
        json.key("assignee")
        if let assignee { assignee.write(to: &json, withID: true) } else { json.null() }
        otherFields.writeRecordEnd(notes: notes, createdTime: createdTime, to: &json)
        json.endObject()
    }

    /// Days as people write them: `2.5`, `1`.
    public static func days(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
