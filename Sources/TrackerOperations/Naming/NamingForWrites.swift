import TrackerAPI
import TrackerModel

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
