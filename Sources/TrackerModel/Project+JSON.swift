extension Collaborator {
    /// The stable JSON shape of a person: `{"name", "email"}`, or `{"id", "name", "email"}` (a task's assignee).
    func write(to json: inout JSONWriter, withID: Bool = false) {
        if withID {
            json.raw("{\"id\":")
            json.string(or: id)
            json.raw(",\"name\":")
        } else {
            json.raw("{\"name\":")
        }
        json.string(or: name)
        json.raw(",\"email\":")
        json.string(or: email)
        json.raw("}")
    }
}

extension Project {
    /// The stable JSON project object of docs/contract.md: every key present, `null` or `[]` when empty, then `fields`:
    /// the base's own fields as Airtable returned them. Written straight to bytes, as listings write thousands.
    public func writeJSON(today: CalendarDate, tasks: TaskProgress? = nil, to json: inout JSONWriter) {
        json.raw("{\"id\":")
        json.string(id)
        json.raw(",\"name\":")
        json.string(or: name)
        json.raw(",\"category\":")
        json.string(or: category)
        json.raw(isComplete ? ",\"complete\":true,\"kickoff\":" : ",\"complete\":false,\"kickoff\":")
        json.string(or: kickoff?.description)
        json.raw(",\"due\":")
        json.string(or: due?.description)
        json.raw(",\"status\":")
        json.string(status(today: today).rawValue)
        json.raw(",\"lead\":")
        if let lead { lead.write(to: &json) } else { json.raw("null") }
        json.raw(",\"team\":[")
        for (index, person) in team.enumerated() {
            if index > 0 { json.raw(",") }
            person.write(to: &json)
        }
        json.raw("],\"clients\":[")
        for (index, client) in clients.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(client)
        }
        json.raw("],\"notes\":")
        json.string(or: notes)
        json.raw(",\"createdTime\":")
        json.string(createdTime)
        json.raw(",\"fields\":")
        otherFields.writeJSON(to: &json)
        if let tasks {
            json.raw(",\"tasks\":{\"done\":")
            json.value(.number(Double(tasks.done)))
            json.raw(",\"total\":")
            json.value(.number(Double(tasks.total)))
            json.raw(",\"daysLeft\":")
            json.value(.number(tasks.daysLeft))
            json.raw("}")
        }
        json.raw("}")
    }

    /// The project's JSON object as one line of text, without the newline.
    public func jsonText(today: CalendarDate, tasks: TaskProgress? = nil) -> String {
        var json = JSONWriter(capacity: 512)
        writeJSON(today: today, tasks: tasks, to: &json)
        return json.text
    }
}

extension [FieldValue] {
    /// The base's own fields as one JSON object, by their Airtable names, values as Airtable returned them.
    func writeJSON(to json: inout JSONWriter) {
        json.raw("{")
        for (index, field) in enumerated() {
            if index > 0 { json.raw(",") }
            json.key(field.name)
            json.value(field.value)
        }
        json.raw("}")
    }
}
