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
