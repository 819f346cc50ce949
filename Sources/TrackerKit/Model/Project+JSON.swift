extension Collaborator {
    /// The stable JSON shape of a person: `{"name", "email"}`.
    public var json: JSONValue { .object([("name", .string(or: name)), ("email", .string(or: email))]) }
}

extension Project {
    /// The stable JSON project object of cli-spec.md: every key present, `null` or `[]` when empty, then `fields`:
    /// the base's own fields as Airtable returned them.
    public func json(today: CalendarDate) -> JSONValue {
        .object([
            ("id", .string(id)),
            ("name", .string(or: name)),
            ("category", .string(or: category)),
            ("complete", .bool(isComplete)),
            ("kickoff", .string(or: kickoff?.description)),
            ("due", .string(or: due?.description)),
            ("status", .string(status(today: today).rawValue)),
            ("lead", lead?.json ?? .null),
            ("team", .array(team.map(\.json))),
            ("clients", .array(clients.map(JSONValue.string))),
            ("notes", .string(or: notes)),
            ("createdTime", .string(createdTime)),
            ("fields", .object(otherFields.map { ($0.name, $0.value) })),
        ])
    }
}
