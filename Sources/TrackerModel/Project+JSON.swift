extension Collaborator {
    /// The stable JSON shape of a person: `{"name", "email"}`, or `{"id", "name", "email"}` (a task's assignee).
    func write<Sink: JSONSink>(to json: inout Sink, withID: Bool = false) {
        json.beginObject()
        if withID {
            json.key("id")
            json.string(or: id)
        }
        json.key("name")
        json.string(or: name)
        json.key("email")
        json.string(or: email)
        json.endObject()
    }
}

extension Project {
    /// The stable JSON project object of docs/contract.md: every key present, `null` or `[]` when empty, then `fields`:
    /// the base's own fields as Airtable returned them; `more` adds members at the end (what a face knows beside the
    /// record). Written straight to bytes for `--json`, as listings write thousands.
    public func writeJSON<Sink: JSONSink>(
        today: CalendarDate, tasks: TaskProgress? = nil, to json: inout Sink, adding more: ((inout Sink) -> Void)? = nil
    ) {
        json.beginObject()
        json.key("id")
        json.string(id)
        json.key("name")
        json.string(or: name)
        json.key("category")
        json.string(or: category)
        json.key("complete")
        json.bool(isComplete)
        json.key("kickoff")
        json.string(or: kickoff?.description)
        json.key("due")
        json.string(or: due?.description)
        json.key("status")
        json.string(status(today: today).rawValue)
        json.key("lead")
        if let lead { lead.write(to: &json) } else { json.null() }
        json.key("team")
        json.beginArray()
        for person in team { person.write(to: &json) }
        json.endArray()
        json.key("clients")
        json.beginArray()
        for client in clients { json.string(client) }
        json.endArray()
        otherFields.writeRecordEnd(notes: notes, createdTime: createdTime, to: &json)
        if let tasks {
            json.key("tasks")
            json.beginObject()
            json.key("done")
            json.number(Double(tasks.done))
            json.key("total")
            json.number(Double(tasks.total))
            json.key("daysLeft")
            json.number(tasks.daysLeft)
            json.endObject()
        }
        more?(&json)
        json.endObject()
    }

    /// The project's JSON object as one line of text, without the newline.
    public func jsonText(today: CalendarDate, tasks: TaskProgress? = nil) -> String {
        var json = JSONWriter(capacity: 512)
        writeJSON(today: today, tasks: tasks, to: &json)
        return json.text
    }

    /// The project's JSON object as a value.
    public func jsonValue(today: CalendarDate, tasks: TaskProgress? = nil) -> JSONValue {
        JSONTree.build { writeJSON(today: today, tasks: tasks, to: &$0) }
    }
}

extension [FieldValue] {
    /// The members every record's object ends with, projects' and tasks' alike: its notes, when it was made, and the
    /// base's own fields.
    func writeRecordEnd<Sink: JSONSink>(notes: String?, createdTime: String, to json: inout Sink) {
        json.key("notes")
        json.string(or: notes)
        json.key("createdTime")
        json.string(createdTime)
        json.key("fields")
        writeJSON(to: &json)
    }

    /// The base's own fields as one JSON object, by their Airtable names, values as Airtable returned them.
    func writeJSON<Sink: JSONSink>(to json: inout Sink) {
        json.beginObject()
        for field in self {
            json.key(field.name)
            json.value(field.value)
        }
        json.endObject()
    }
}
