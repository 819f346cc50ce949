import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
extension Runner {
    /// `tracker delete`: finds every project named, asks on a terminal (or needs `--yes`), deletes ten a request and
    /// prints the deleted ids.
    func delete(_ options: ProjectsOptions) async throws {
        let client = try await prepareBase().client
        var written = writtenOutput(options.mode)
        // With --yes and ids alone, the delete is the one request (--json prints objects, so it reads them first).
        var deletedByID = 0
        let wroteByID = try await writtenByID(
            options.targets, allowed: options.confirmed && !options.mode.dryRun && !options.mode.json
        ) { ids in
            try await client.deleteProjects(ids, unverified: true) { batch in try written.emitIDs(batch) }
            deletedByID = ids.count
        }
        if wroteByID {
            try written.finish()
            narrate("Deleted \(deletedByID) project\(deletedByID == 1 ? "" : "s").", options.mode)
            return
        }
        let projects = try await ProjectNaming(client: client).resolve(all: options.targets)
        let ids = projects.map(\.id)
        if options.mode.dryRun { return try printPlanned(client.plannedDeletes(ids)) }
        if !options.confirmed { try confirmDeleting(projects) }
        try await client.deleteProjects(ids) { batch in try written.emit(projects.filter { batch.contains($0.id) }) }
        try written.finish()
        narrate("Deleted \(ids.count) project\(ids.count == 1 ? "" : "s").", options.mode)
    }

    /// Shows what will be deleted and asks `[y/N]` on a terminal; without one, `--yes` is required.
    private func confirmDeleting(_ projects: [Project]) throws {
        guard context.isStdinTerminal else {
            throw AppError.usage(
                "delete asks before deleting, and stdin is not a terminal; pass --yes to delete without asking (nothing was deleted)",
                command: "delete")
        }
        var text = "This deletes \(projects.count) project\(projects.count == 1 ? "" : "s"):\n"
        for project in projects {
            let due = project.due.map { ", due \($0)" } ?? ""
            text += "  \(project.id)  \(TextCells.folded(project.name ?? "(no name)"))\(due)\n"
        }
        output.standardError(text + "Delete \(projects.count == 1 ? "it" : "them")? [y/N] ")
        let answer = context.readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw AppError.declined("nothing was deleted") }
    }
}
