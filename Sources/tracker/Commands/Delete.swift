#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerNetwork
import TrackerSystem

/// `tracker delete`: deletes projects, after asking.
struct Delete: Command {
    static let spec = CommandSpec(
        name: "delete", summary: "Delete projects, after asking.",
        usage: ["tracker delete ID|NAME... [--yes] [--dry-run] [--json] [-q]"], positional: "ID|NAME...",
        arguments: .projects,
        flags: [FlagSpec(name: "--yes", short: "-y", help: "do not ask; needed when stdin is not a terminal")]
            + CommandSpec.writeFlags,
        examples: ["tracker delete \"Old draft\"", "tracker delete --yes rec3g0Xxmw2rw3scs    # from a script"],
        notes: [
            CommandSpec.namingNote, "On a terminal it shows what it will delete and asks. It prints the deleted ids.",
        ])

    var targets: [String]
    var mode = WriteMode()
    /// `--yes`: no question asked.
    var confirmed = false

    func run(_ runner: Runner) async throws { try await runner.delete(self) }
}

extension Delete {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        self.init(
            targets: try scanned.projectTargets(), mode: try scanned.writeMode(), confirmed: scanned.has("--yes"))
    }
}

extension Runner {
    /// `tracker delete`: finds every project named, asks on a terminal (or needs `--yes`), deletes ten a request and
    /// prints the deleted ids.
    fileprivate func delete(_ options: Delete) async throws {
        // Cold, the delete by ids (or the find by names) goes out beside the schema read.
        let base = try await prepareBase(readingBeside: true)
        let client = base.client
        var written = writtenOutput(options.mode)
        // With --yes and ids alone, the delete is the one request (--json prints objects, so it reads them first).
        var deletedByID = 0
        let wroteByID = try await base.writtenByID(
            options.targets, allowed: options.confirmed && !options.mode.dryRun && !options.mode.json
        ) { ids in
            try await client.deleteProjects(ids, unverified: true) { batch in try written.emitIDs(batch) }
            deletedByID = ids.count
        }
        if wroteByID {
            try written.finish()
            await base.finish()
            narrate("Deleted \(deletedByID) project\(deletedByID == 1 ? "" : "s").", options.mode)
            return
        }
        let projects = try await base.namingForWrites().resolve(all: options.targets)
        _ = try await base.confirmedLayout()
        let ids = projects.map(\.id)
        if options.mode.dryRun { return try printPlanned(client.plannedDeletes(ids)) }
        if !options.confirmed {
            try confirmDeleting(
                projects.map {
                    "\($0.id)  \(TextCells.folded($0.name ?? "(no name)"))\($0.due.map { ", due \($0)" } ?? "")"
                },
                noun: "project", command: "delete")
        }
        try await client.deleteProjects(ids) { batch in try written.emit(projects.filter { batch.contains($0.id) }) }
        try written.finish()
        narrate("Deleted \(ids.count) project\(ids.count == 1 ? "" : "s").", options.mode)
    }
}
