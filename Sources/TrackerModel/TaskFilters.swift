/// What `tracker tasks` and `status` ask for: which tasks by completion, whose, and text to find.
public struct TaskFilters: Equatable, Sendable {
    /// Open tasks (the default), done ones, or both.
    public enum State: String, Equatable, Sendable {
        case open, done, all
    }

    public var state = State.open
    /// `me`, an email or a collaborator's name; nil for anyone's.
    public var assignee: String?
    /// Text that the name or notes hold, in any case.
    public var search: String?

    public init(state: State = .open, assignee: String? = nil, search: String? = nil) {
        self.state = state
        self.assignee = assignee
        self.search = search
    }

    /// Whether the token's user must be asked for (`--mine`, `--assignee me`).
    public var needsMe: Bool { assignee?.lowercased() == "me" }

    /// The assignee check Airtable cannot do (a collaborator is a name inside a formula, and names repeat): by user id
    /// for `me`, by email, or by the whole name in any case; nil when the filters name nobody.
    public func localMatch(me: String?) -> (@Sendable (ProjectTask) -> Bool)? {
        guard let wanted = assignee?.trimmingWhitespace(), !wanted.isEmpty else { return nil }
        if wanted.lowercased() == "me" {
            let me = me
            return { task in me != nil && task.assignee?.id == me }
        }
        let lowered = wanted.lowercased()
        if lowered.contains("@") { return { $0.assignee?.email?.lowercased() == lowered } }
        return { $0.assignee?.name?.lowercased() == lowered }
    }
}

extension ProjectTask {
    /// The stable JSON task object of cli-spec.md: every key present, `project` the first linked project as the
    /// caller knows it (nil: not read, or none), then the base's own fields as Airtable returned them.
    public func writeJSON(project: (name: String?, due: CalendarDate?, status: ProjectStatus)?, to json: inout JSONWriter)
    {
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
        if let assignee {
            json.raw("{\"id\":")
            json.string(or: assignee.id)
            json.raw(",\"name\":")
            json.string(or: assignee.name)
            json.raw(",\"email\":")
            json.string(or: assignee.email)
            json.raw("}")
        } else {
            json.raw("null")
        }
        json.raw(",\"notes\":")
        json.string(or: notes)
        json.raw(",\"createdTime\":")
        json.string(createdTime)
        json.raw(",\"fields\":{")
        for (index, field) in otherFields.enumerated() {
            if index > 0 { json.raw(",") }
            json.key(field.name)
            json.value(field.value)
        }
        json.raw("}}")
    }

    /// Days as people write them: `2.5`, `1`.
    public static func days(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
