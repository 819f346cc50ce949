#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

extension Session {
    /// Keeps the names file for shell completion up to date with what this command read: `projects` first, and the
    /// schema's categories, views and fields when tracker has it. Failing to write it is not an error.
    package func rememberNames(
        _ projects: [String], ids: [(id: String, name: String)] = [], replacing: Bool
    ) {
        guard let cache = surroundings.cache else { return }
        let name = NamesFile.fileName(
            endpoint: configuration.endpoint, baseID: configuration.baseID, table: configuration.table)
        let stored = cache.read(name)
        var names = stored.flatMap(NamesFile.init(data:)) ?? NamesFile()
        names.remember(projects: projects, replacing: replacing)
        names.remember(projectIDs: ids, replacing: replacing)
        if let table = layout.table {
            names.remember(
                table: table, category: layout.fields[.category], trackerFields: Set(layout.fields.names))
        }
        // A listing of what is already known writes nothing: most runs of a cron line or a prompt change no name.
        let data = names.data
        if data != stored { cache.write(data, to: name) }
    }

    /// Keeps the clients' names for TAB after `--client`.
    package func rememberClientNames(_ clients: [String]) {
        guard let cache = surroundings.cache else { return }
        let name = NamesFile.fileName(
            endpoint: configuration.endpoint, baseID: configuration.baseID, table: configuration.table)
        var names = cache.read(name).flatMap(NamesFile.init(data:)) ?? NamesFile()
        let before = names
        names.remember(clients: clients)
        if names != before { cache.write(names.data, to: name) }
    }

    /// Adds the names of `tasks` and their assignees to the names file, for TAB after `task` verbs and `--assignee`.
    package func rememberTaskNames(_ tasks: [ProjectTask]) {
        guard let cache = surroundings.cache, !tasks.isEmpty else { return }
        let name = NamesFile.fileName(
            endpoint: configuration.endpoint, baseID: configuration.baseID, table: configuration.table)
        var names = cache.read(name).flatMap(NamesFile.init(data:)) ?? NamesFile()
        // The file keeps the first few thousand; a listing of 50,000 tasks need not offer the rest to it.
        let shown = tasks.prefix(NamesFile.projectLimit)
        let people = shown.compactMap { $0.assignee.map { $0.name ?? $0.email ?? "" } }
        let before = names
        names.remember(tasks: shown.compactMap(\.name), people: people)
        if names != before { cache.write(names.data, to: name) }
    }

    /// The name a listing or `show` last read for the project `id`, if any (it may have been renamed since: what is
    /// read by it is checked against the record).
    package func rememberedName(ofProject id: String) -> String? {
        guard let cache = surroundings.cache else { return nil }
        let file = NamesFile.fileName(
            endpoint: configuration.endpoint, baseID: configuration.baseID, table: configuration.table)
        return cache.read(file).flatMap(NamesFile.init(data:))?.projectNames[id]
    }
}

/// The names a write acts on: exact, any case, a guess only where a person is asked.
extension Session {
    /// The naming rule for a command that writes: exact names, any case, never a guess acted on unasked. Where the face
    /// can ask (a terminal), the one project holding every word typed is offered (`Did you mean "Coffee packaging"?
    /// [y/N]`); elsewhere a guess is 66 naming it.
    package func namingForWrites() -> ProjectNaming {
        var naming = ProjectNaming(client: client)
        if let ask = guessQuestion("project") { naming.confirmsGuess = { ask($0.name ?? $0.id) } }
        return naming
    }

    /// The question a write asks about the one `noun` whose name holds every word typed: true only for a yes. Nil
    /// where the face cannot ask, and a guess is 66.
    package func guessQuestion(_ noun: String) -> (@Sendable (String) -> Bool)? {
        guard let ask = surroundings.confirmsGuess else { return nil }
        return { name in ask(noun, name) }
    }

    /// The naming rule for tasks, narrowed to the project `--project` names when given; `reading` for commands that
    /// only read (a name holding every word typed is taken), else a guess is asked about on a terminal.
    package func taskNaming(_ layout: TaskLayout, project: String?, reading: Bool = false) async throws
        -> TaskNaming
    {
        var naming = TaskNaming(client: client, reader: reader, layout: layout)
        if let project {
            let found = try await ProjectNaming(client: client, forgivesWords: reading).resolve(project)
            naming.within = found
            naming.withinIDs = taskIDs(of: found, in: layout)
        }
        if reading { naming.forgivesWords = true } else { naming.confirmsGuess = guessQuestion("task") }
        return naming
    }

    /// Finds what `target` names, by the naming rule of its table; `forgiving` for commands that only read.
    package func find(_ target: RecordTarget, forgiving: Bool) async throws -> FoundRecord {
        switch target {
        case .project(let typed):
            let naming =
                forgiving ? ProjectNaming(client: self.client, forgivesWords: true) : namingForWrites()
            let project = try await naming.resolve(typed)
            let layout = try await self.confirmedLayout()
            return FoundRecord(
                id: project.id, route: nil, tableID: layout.table?.id, name: project.name ?? project.id,
                project: project)
        case .task(let typed, let project):
            let confirmed = try await withConfirmedLayout()
            let layout = try confirmed.taskLayout()
            let task = try await confirmed.taskNaming(layout, project: project, reading: forgiving).resolve(typed)
            return FoundRecord(id: task.id, route: layout.route, tableID: layout.table?.id, name: task.name ?? task.id)
        }
    }
}
