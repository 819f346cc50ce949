#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerTeam
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// The table as one command sees it: which field each of tracker's words is, and the schema when the token may read it.
package struct TableLayout: Sendable {
    package var fields: FieldMap
    /// The projects table's schema; nil when the token may not read the schema or the base has no such table.
    package var table: BaseSchema.Table?
    package var schema: BaseSchema?
    /// The Tasks table; nil when the base has none or the secrets file says so (`requireTasks` says which).
    package var tasks: TaskLayout? = nil
    /// Why the Tasks table named in the secrets file cannot be used; kept for task commands, so that a wrong `"tasks"`
    /// never stops a command about projects.
    package var tasksProblem: AppError? = nil

    /// The field of the projects table that `name` names (exactly, else ignoring case).
    package func field(matching name: String) -> BaseSchema.Field? { table?.field(matching: name) }

    /// The table the client field links to, when the schema says.
    package var clientTableID: String? { fields[.client].flatMap { table?.field(named: $0)?.linkedTableID } }
    /// Each stored value given.
    package init(
        fields: FieldMap, table: BaseSchema.Table?, schema: BaseSchema?, tasks: TaskLayout? = nil,
        tasksProblem: AppError? = nil
    ) {
        self.fields = fields
        self.table = table
        self.schema = schema
        self.tasks = tasks
        self.tasksProblem = tasksProblem
    }
}

/// What a command knows about the base: the secrets file's `"fields"`, the schema (remembered for an hour, and read
/// again at most once a command, before anything is refused as unknown), and names resolved since it was read.
package final class BaseKnowledge: Sendable {
    private let client: ProjectAPIClient
    private let settings: FieldSettings
    private let cache: CacheDirectory?
    private let fileName: String
    private let now: @Sendable () -> Date
    /// The schema the team's copy shares through Redis, when this process takes part in it.
    private let team: TeamSchema?

    private struct State {
        package var remembered: RememberedBase?
        package var hasLoaded = false
        /// Whether the schema was read from Airtable during this command.
        package var isCurrent = false
        package var layout: TableLayout?
        /// The token's user, when asked before a schema to remember it with was read.
        package var user: String?
    }
    private let state = Locked(State())
    /// Held while what is remembered is written, so saves land in the order they take the state.
    private let saving = Locked(())

    package init(
        client: ProjectAPIClient, cache: CacheDirectory?, now: @escaping @Sendable () -> Date, team: TeamSchema? = nil
    ) {
        self.client = client
        self.team = team
        self.settings = client.access.fieldSettings
        self.cache = cache
        self.fileName = RememberedBase.fileName(
            endpoint: client.access.endpoint, baseID: client.access.baseID,
            token: client.access.token)
        self.now = now
    }

    /// Whether a schema under an hour old is remembered.
    package var remembersFreshSchema: Bool {
        loadRemembered()?.isFresh(at: now().timeIntervalSince1970) == true
    }

    /// Whether the schema was read during this command, so reading it again would learn nothing.
    package var isCurrent: Bool { state.withLock { $0.isCurrent } }

    /// How many seconds ago the schema in use was read; nil before it was.
    package var age: Double? {
        state.withLock { $0.remembered.map { now().timeIntervalSince1970 - $0.readAt } }
    }

    /// How many seconds ago the remembered schema was read, as it stands on disk; nil when none is.
    package func rememberedAge() -> Double? {
        loadRemembered().map { now().timeIntervalSince1970 - $0.readAt }
    }

    /// The layout: from the remembered schema while it is under an hour old, else from the one the team shares (when
    /// this process takes part in the team's copy), else from the schema read now.
    package func layout() async throws -> TableLayout {
        if let layout = state.withLock({ $0.layout }) { return layout }
        let remembered = loadRemembered()
        if let remembered, remembered.isFresh(at: now().timeIntervalSince1970) {
            do {
                return try adopt(remembered, isCurrent: false)
            } catch let error as AppError {
                // The base may have been put right since: read it again before refusing it.
                guard error.exitCode == .configuration else { throw error }
            }
        } else if let layout = await sharedLayout() {
            return layout
        }
        return try await read()
    }

    /// The layout from the schema the team shares, when it is under an hour old and fits the secrets file; nil leaves
    /// the read to this process (which then shares what it read). While another machine is reading it, this one waits
    /// a moment for it rather than reading it too.
    private func sharedLayout() async -> TableLayout? {
        guard let team else { return nil }
        let now = self.now
        let isFresh: (Double) -> Bool = {
            RememberedBase(readAt: $0, schema: nil).isFresh(at: now().timeIntervalSince1970)
        }
        guard let found = await team.find(isFresh: isFresh) else { return nil }
        var remembered = loadRemembered() ?? RememberedBase(readAt: found.readAt, schema: nil)
        (remembered.readAt, remembered.schema) = (found.readAt, found.schema)
        // A shared schema that does not fit (a field renamed since) is read again from Airtable, as a remembered one is.
        guard let layout = try? adopt(remembered, isCurrent: false) else { return nil }
        save()
        return layout
    }

    /// The layout from the schema read again now, unless this command already read it: nil then, as nothing new
    /// can be learned.
    package func refreshed() async throws -> TableLayout? {
        if isCurrent { return nil }
        return try await read()
    }

    /// The schema as Airtable has it now, remembered for the next hour.
    private func read() async throws -> TableLayout {
        let body: JSONValue?
        do {
            body = try await client.schemaBody().get()
        } catch {
            team?.release()
            throw error
        }
        let readAt = now().timeIntervalSince1970
        if let body, let team {
            team.share(body, readAt: readAt, lifetime: RememberedBase.lifetime)
        } else {
            team?.release()
        }
        // Names stay as long as the schema they were resolved with.
        let layout = try adopt(RememberedBase(readAt: readAt, schema: body), isCurrent: true)
        save()
        return layout
    }

    /// Names of a linked table read beside a record: one page of them (Airtable's 100), never a sequence of pages
    /// that a large table would make the command wait for; the names it lacks are looked up by id.
    package static let linkedNamesRead = 100

    /// Some records of one linked table whose names to read: `formula` picks them, `limit` bounds them.
    package struct NamesWanted: Sendable {
        package var table: String
        package var primaryField: String
        package var formula: String
        package var limit: Int
        /// Each stored value given.
        package init(table: String, primaryField: String, formula: String, limit: Int) {
            self.table = table
            self.primaryField = primaryField
            self.formula = formula
            self.limit = limit
        }
    }

    /// Reads the primary-field names of the records `wanted` picks, one request a table, all at once, and remembers
    /// them; returns the records read. A table that cannot be read is left out (its ids stay ids).
    @discardableResult
    package func readNames(_ wanted: [NamesWanted]) async -> [LinkedRecord] {
        let client = self.client
        let found = await withTaskGroup(of: (String, [LinkedRecord]?).self) { group in
            for request in wanted {
                group.addTask {
                    let found = await client.linkedRecords(
                        in: request.table, primaryField: request.primaryField, matching: request.formula,
                        limit: request.limit)
                    return (request.table, try? found.get())
                }
            }
            var all: [(String, [LinkedRecord])] = []
            for await (table, records) in group { if let records { all.append((table, records)) } }
            return all
        }
        for (table, records) in found { remember(records: records, in: table) }
        return found.flatMap(\.1)
    }

    private func adopt(_ remembered: RememberedBase, isCurrent: Bool) throws -> TableLayout {
        let schema = try remembered.schema.map { body throws(AppError) in try BaseSchema(airtable: body) }
        let table = schema?.table(client.access.table)
        let fields = try table.map { table throws(AppError) in try settings.resolve(in: table) } ?? settings.assumed
        var layout = TableLayout(fields: fields, table: table, schema: schema)
        do {
            layout.tasks = try TaskLayout.resolve(client.access.tasks, projects: table, schema: schema)
        } catch {
            layout.tasksProblem = error as? AppError ?? .configuration("\(error)", hint: nil)
        }
        state.withLock {
            // In the same lock as `me()` looks for a remembered base, so a whoami answered meanwhile is kept.
            var remembered = remembered
            if remembered.user == nil { remembered.user = $0.user }
            $0.remembered = remembered
            $0.isCurrent = isCurrent
            $0.layout = layout
        }
        return layout
    }

    private func loadRemembered() -> RememberedBase? {
        state.withLock { state in
            if !state.hasLoaded {
                state.hasLoaded = true
                state.remembered = cache?.read(fileName).flatMap(RememberedBase.init(data:))
            }
            return state.remembered
        }
    }

    /// Writes what is remembered, one save at a time, each taking the state as it is when its turn comes: a schema
    /// read and a whoami answered side by side both end up on disk, whichever finishes last (two saves that captured
    /// the state first and wrote it after could put the older one last and lose the user).
    private func save() {
        guard let cache else { return }
        saving.withLock { _ in
            guard let data = state.withLock({ $0.remembered?.data }) else { return }
            cache.write(data, to: fileName)
        }
    }

    // MARK: - Who the token is

    /// The token's user id: remembered with the schema, else asked of Airtable (`whoami`, which needs no scope).
    /// The token's user id when it is remembered (no request); nil when never asked.
    package var rememberedUser: String? { state.withLock { $0.remembered?.user ?? $0.user } }

    package func me() async throws -> String {
        if let user = state.withLock({ $0.remembered?.user }) { return user }
        guard let user = try await client.whoami().get().id else { throw AppError.badResponse("whoami has no user id") }
        let changed = state.withLock { state -> Bool in
            state.user = user
            guard state.remembered != nil else { return false }
            state.remembered?.user = user
            return true
        }
        if changed { save() }
        return user
    }

    // MARK: - Names

    /// The cell for the collaborator called `name`, if one was found by that name before.
    package func person(named name: String) -> JSONValue? {
        state.withLock { $0.remembered?.people[name.lowercased()] }
    }

    /// The names of records of `table` tracker has seen, by id.
    package func recordNames(in table: String) -> [String: String] {
        state.withLock { $0.remembered?.records[table] ?? [:] }
    }

    /// Remembers collaborators found by name, and records of other tables by id, for the next commands.
    package func remember(people: [String: JSONValue] = [:], records: [LinkedRecord] = [], in table: String? = nil) {
        let changed = state.withLock { state -> Bool in
            guard var remembered = state.remembered else { return false }
            var changed = false
            for (name, cell) in people where remembered.people[name.lowercased()] != cell {
                remembered.people[name.lowercased()] = cell
                changed = true
            }
            if let table {
                for record in records {
                    guard let name = record.name, remembered.records[table]?[record.id] != name else { continue }
                    remembered.records[table, default: [:]][record.id] = name
                    changed = true
                }
            }
            state.remembered = remembered
            return changed
        }
        if changed { save() }
    }
}
