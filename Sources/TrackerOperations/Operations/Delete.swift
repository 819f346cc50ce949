import TrackerAPI
import TrackerModel

/// `tracker delete`: deletes projects, after asking.
package struct Delete: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "delete", summary: "Delete projects, after asking.",
        usage: ["tracker delete ID|NAME... [--yes] [--dry-run] [--json] [-q]"], positional: "ID|NAME...",
        arguments: .projects,
        flags: [FlagSpec(name: "--yes", short: "-y", help: "do not ask; needed when stdin is not a terminal")]
            + CommandSpec.writeFlags,
        examples: ["tracker delete \"Old draft\"", "tracker delete --yes rec3g0Xxmw2rw3scs    # from a script"],
        notes: [
            CommandSpec.namingNote, "On a terminal it shows what it will delete and asks. It prints the deleted ids.",
        ])

    package var targets: [String]
    package var mode = WriteMode()
    /// `--yes`: no question asked.
    package var confirmed = false

    /// Each value given.
    package init(targets: [String], mode: WriteMode = WriteMode(), confirmed: Bool = false) {
        self.targets = targets
        self.mode = mode
        self.confirmed = confirmed
    }

    // Cold, the delete by ids (or the find by names) goes out beside the schema read.
    package var opening: SessionOpening { .besideSchema }

    package func run(in session: Session) async throws -> Deleted { try await run(in: session) { _ in } }

    /// Finds every project named, asks where the face can (else needs `--yes`), and deletes ten a request, handing
    /// each batch on as it goes.
    package func run(in session: Session, deleted: (DeletedBatch) throws -> Void) async throws -> Deleted {
        let client = session.client
        // With --yes and ids alone, the delete is the one request (--json gives objects, so it reads them first).
        var deletedByID = 0
        let wroteByID = try await session.writtenByID(targets, allowed: confirmed && !mode.dryRun && !mode.json) {
            ids in
            try await session.sending { writes in
                try await writes.deleteProjects(ids, unverified: true) { batch in try deleted(.ids(batch)) }
            }
            deletedByID = ids.count
        }
        if wroteByID { return .deleted(count: deletedByID) }
        let projects = try await session.namingForWrites().resolve(all: targets)
        _ = try await session.confirmedLayout()
        let ids = projects.map(\.id)
        if mode.dryRun { return .planned(client.plannedDeletes(ids)) }
        if !confirmed {
            try session.confirmDeleting(
                projects.map {
                    "\($0.id)  \(TextCells.folded($0.name ?? "(no name)"))\($0.due.map { ", due \($0)" } ?? "")"
                },
                noun: "project", command: "delete")
        }
        try await session.sending { writes in
            try await writes.deleteProjects(ids, known: projects) { batch in
                try deleted(.projects(projects.filter { batch.contains($0.id) }))
            }
        }
        return .deleted(count: ids.count)
    }
}

extension Delete {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        self.init(
            targets: try scanned.projectTargets(), mode: try scanned.writeMode(), confirmed: scanned.has("--yes"))
    }
}

/// A batch a delete handed on as Airtable confirmed it: ids alone (a delete by ids, nothing read first), or the
/// projects it had found.
package enum DeletedBatch {
    case ids([String])
    case projects([Project])
}

/// What `delete` came to: the requests a dry run would send, or how many projects were deleted.
package enum Deleted: Equatable, Sendable {
    case planned([PlannedRequest])
    case deleted(count: Int)
}
