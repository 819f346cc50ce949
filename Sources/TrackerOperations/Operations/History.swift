#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// `tracker history`: what tracker wrote to the base, newest first, from every face and (with a team Redis) every
/// machine. Reads the journal only: nothing is sent to Airtable but, for `--mine` once a token, `whoami`.
package struct History: SetupOperation, Operation, Equatable {
    package static let spec = CommandSpec(
        name: "history", summary: "List what tracker wrote to the base, newest first.",
        usage: ["tracker history [--mine] [--since DATE] [--limit N] [--json]"],
        flags: [
            FlagSpec(name: "--mine", help: "only what this token's person wrote"),
            FlagSpec(name: "--since", value: "DATE", help: "only what was written on DATE or later"),
            FlagSpec(name: "--limit", value: "N", minimum: 1, maximum: 10_000, help: "at most N entries (default 20)"),
            FlagSpec(name: "--json", help: "one JSON array of entries, each with every field before and after"),
        ],
        examples: [
            "tracker history", "tracker history --mine --since yesterday", "tracker history --json | jq '.[0]'",
        ],
        notes: [
            "Every write tracker makes (any face: the command line, the board, mcp, serve) is one entry: who, when, the",
            "command or tool, and each record's fields before and after. Kept 30 days (the newest 10,000) in the team's",
            "Redis when \"redis\" is set, else in this machine's state directory. 'tracker undo ID' takes one back.",
        ])

    package var mine = false
    package var since: CalendarDate? = nil
    package var limit = 20
    package var json = false

    /// Each value given.
    package init(mine: Bool = false, since: CalendarDate? = nil, limit: Int = 20, json: Bool = false) {
        (self.mine, self.since, self.limit, self.json) = (mine, since, limit, json)
    }

    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(
            mine: scanned.has("--mine"), since: try scanned.date("--since", today: today),
            limit: scanned.last("--limit").flatMap(Int.init) ?? 20, json: scanned.has("--json"))
    }

    package func run(in setup: Setup) async throws -> [JournalEntry] {
        let configuration = try setup.configuration()
        let surroundings = setup.surroundings(configuration)
        return try await entries(surroundings) { try await Self.me(setup, configuration, surroundings) }
    }

    // A face that stays (mcp, serve) lists it in a session of the call's: the person is the call's.
    package var opening: SessionOpening { .besideSchema }

    package func run(in session: Session) async throws -> [JournalEntry] {
        try await entries(session.surroundings) {
            if let user = session.surroundings.journal.user { return user }
            return try await session.knowledge.me()
        }
    }

    private func entries(_ surroundings: SessionSurroundings, me: () async throws -> String) async throws
        -> [JournalEntry]
    {
        let journal = surroundings.journal
        guard let store = journal.store else { return [] }
        let start = since.map { surroundings.timeZone.instant($0).timeIntervalSince1970 }
        // `--mine` filters after reading: read up to the bound, so a limit counts this person's entries.
        // Plans waiting for approval are not writes ('tracker approvals' lists them): read past the few there are.
        let read = try store.entries(limit: mine ? JournalBounds.entries : limit + 100, since: start).filter {
            $0.state != .planned
        }
        guard mine else { return Array(read.prefix(limit)) }
        // The token's own entries need no `whoami`; the person's from other tokens (another machine) do, once.
        let user = read.contains { !journal.wrote($0, me: nil) && $0.user != nil } ? try? await me() : nil
        return Array(read.filter { journal.wrote($0, me: user) }.prefix(limit))
    }

    /// Who the token (or serve's person) is: the face's word, else what is remembered with the schema, else `whoami`.
    package static func me(_ setup: Setup, _ configuration: Configuration, _ surroundings: SessionSurroundings)
        async throws -> String
    {
        if let user = surroundings.journal.user { return user }
        let knowledge = BaseKnowledge(
            client: setup.client(configuration), cache: surroundings.cache, now: surroundings.now, team: nil)
        return try await knowledge.me()
    }
}

extension JournalEntry {
    /// How many records it touched.
    package var recordCount: Int { changes.count }

    /// Where it stands, in a word: `done`, `undone`, `refused`, `unconfirmed` (its answer not had).
    package var standing: String {
        if undoneBy != nil { return "undone" }
        switch state {
        case .completed: return "done"
        case .refused: return "refused"
        case .opened: return "unconfirmed"
        case .planned: return "planned"
        }
    }

    /// The face and command, as a person reads it: `cli update`, `mcp update_project`.
    package var what: String { face + " " + command }

    /// The entry as `history --json` and the `history` tool give it: the stored object with its standing.
    package var listed: JSONValue {
        guard case .object(var members) = json else { return json }
        members.append(("records", .number(Double(recordCount))))
        members.append(("status", .string(standing)))
        return .object(members)
    }
}
