import TrackerModel

/// Where a planned write stands: kept with its plan (a journal entry in state `planned`) for ten minutes, for the
/// person it was planned for to approve or reject.
package struct Approval: Sendable, Equatable {
    package enum Status: String, Sendable {
        /// Waiting for the person.
        case pending
        /// Made: `applied` names the journal entry it was made as.
        case applied
        /// The person said no: nothing was written.
        case rejected
        /// Ten minutes passed with no answer: nothing was written.
        case expired
        /// On approval a record had changed since the plan: nothing was written, and the plan now holds the records
        /// as they are, for the person to look at and approve again.
        case conflicted
    }

    /// How long a plan waits.
    package static let lifetime = 600.0

    package var status: Status
    /// When it stops waiting, seconds since 1970.
    package var expires: Double
    /// The journal entry the write was made as, once applied.
    package var applied: String? = nil
    /// What the write came to, once applied: the records written and those it made.
    package var result: JSONValue? = nil
    /// What changed since the plan, when it was last found conflicted.
    package var conflicts: [String] = []

    package init(status: Status = .pending, expires: Double) {
        (self.status, self.expires) = (status, expires)
    }

    /// Its status at `now`: one still waiting past its time is expired.
    package func status(at now: Double) -> Status {
        switch status {
        case .pending, .conflicted: now > expires ? .expired : status
        default: status
        }
    }

    var json: JSONValue {
        var members: [(String, JSONValue)] = [("status", .string(status.rawValue)), ("expires", .number(expires))]
        if let applied { members.append(("applied", .string(applied))) }
        if let result { members.append(("result", result)) }
        if !conflicts.isEmpty { members.append(("conflicts", .array(conflicts.map(JSONValue.string)))) }
        return .object(members)
    }

    init?(json: JSONValue) {
        guard let status = json["status"]?.stringValue.flatMap(Status.init), let expires = json["expires"]?.numberValue
        else { return nil }
        self.init(status: status, expires: expires)
        applied = json["applied"]?.stringValue
        result = json["result"]
        conflicts = json["conflicts"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

/// Which assistant writes wait for a person: the kinds named (`add`, `update`, `delete`, `comment`, `attach`), and
/// any call that would touch more than ten records.
package struct ApprovalPolicy: Sendable, Equatable {
    package var kinds: Set<JournalEntry.Change.Kind>

    /// A call touching more records than this waits, whatever its kind.
    package static let recordLimit = 10

    package init(kinds: Set<JournalEntry.Change.Kind>) { self.kinds = kinds }

    /// `serve`'s default: deletions and changes wait (the person is not at the assistant's side).
    package static let serve = ApprovalPolicy(kinds: [.delete, .update])
    /// `mcp`'s default over stdio: the app that starts it asks the person before each call; only a call of more than
    /// ten records waits.
    package static let stdio = ApprovalPolicy(kinds: [])

    /// The words a setting may hold, and the kinds they name.
    package static let words: [(String, [JournalEntry.Change.Kind])] = [
        ("add", [.create]), ("update", [.update]), ("delete", [.delete]), ("comment", [.comment]),
        ("attach", [.attach]), ("all", [.create, .update, .delete, .comment, .attach]),
    ]

    /// Whether a write of `changes`, after `touched` records of the same call, waits.
    package func holds(_ changes: [JournalEntry.Change], touched: Int) -> Bool {
        changes.contains { kinds.contains($0.kind) } || touched + changes.count > Self.recordLimit
    }

    /// The policy a setting names; nil when a word is not one of `words`.
    package static func named(_ settings: [String]) -> ApprovalPolicy? {
        var kinds: Set<JournalEntry.Change.Kind> = []
        for word in settings {
            guard let named = words.first(where: { $0.0 == word }) else { return nil }
            kinds.formUnion(named.1)
        }
        return ApprovalPolicy(kinds: kinds)
    }
}
