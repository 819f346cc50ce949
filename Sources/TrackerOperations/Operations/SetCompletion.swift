import TrackerAPI
import TrackerModel

/// `done` and `reopen`: finds every project named before writing, then sets the completion field (a checkbox, or the
/// select's done or open choice) ten projects a request. A project already in that state is not written, but it is
/// handed back like the others.
package struct SetCompletion: Operation, Equatable {
    package var complete: Bool
    package var targets: [String]
    package var dryRun = false

    /// Each value given.
    package init(complete: Bool, targets: [String], dryRun: Bool = false) {
        self.complete = complete
        self.targets = targets
        self.dryRun = dryRun
    }

    /// The command's name, in what it refuses.
    package var command: String { complete ? "done" : "reopen" }
    package var journalName: String { command }

    // Cold, the write by ids (or the find by names) goes out beside the schema read.
    package var opening: SessionOpening { .besideSchema }

    package func run(in session: Session) async throws -> CompletionOutcome {
        try await run(in: session) { _ in }
    }

    /// Hands each batch of projects to `written` as it is written (so what was done is on record even if a later
    /// batch fails); a project already in that state comes first, once the names are found.
    package func run(in session: Session, written: ([Project]) throws -> Void) async throws -> CompletionOutcome {
        let value = try await session.checker(command: command).completionValue(complete, flag: command)
        let write = ProjectWrite([(.complete, value)])
        let command = command
        func apply(_ changes: [ProjectChange], known: [Project] = []) async throws {
            try await session.writing(recheck: { _ = try await $0.checker(command: command) }) { writes in
                try await writes.updateProjects(changes, known: known, onUpdated: written)
            }
        }
        // By ids alone the write is the one request (setting a value twice changes nothing).
        var count = Set(targets).count
        let wroteByID = try await session.writtenByID(targets, allowed: !dryRun) { ids in
            try await apply(ids.map { ProjectChange(id: $0, write: write) })
        }
        if !wroteByID {
            let projects = try await session.namingForWrites().resolve(all: targets)
            _ = try await session.confirmedLayout()
            let changes = projects.filter { $0.isComplete != complete }.map { ProjectChange(id: $0.id, write: write) }
            if dryRun { return .planned(session.client.plannedUpdates(changes)) }
            try written(projects.filter { $0.isComplete == complete })
            try await apply(changes, known: projects)
            count = projects.count
        }
        return .written(count: count)
    }
}

/// What a write of several records came to: the requests a dry run would send, or how many records it covered.
package enum CompletionOutcome: Equatable, Sendable {
    case planned([PlannedRequest])
    case written(count: Int)
}
