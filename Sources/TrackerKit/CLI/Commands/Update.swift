extension Runner {
    /// `tracker update`: changes only the given fields of one project (PATCH) and prints its id.
    func update(_ options: UpdateOptions) async throws {
        let client = try makeClient()
        let project = try await ProjectNaming(client: client).resolve(options.target)
        let notes = try readNotes(options.input.notes, command: "update")
        let write = try await ValueChecker(client: client, command: "update").write(for: options.input, notes: notes)
        let change = ProjectChange(id: project.id, write: write)
        if options.mode.dryRun { return try printPlanned(client.plannedUpdates([change])) }
        var updated = project
        try await client.updateProjects([change]) { updated = $0.first ?? updated }
        let what = write.cells.map { $0.word.rawValue }.joined(separator: ", ")
        narrate("Updated \"\(updated.name ?? updated.id)\": \(what).", options.mode)
        try printWritten(updated, options.mode)
    }
}
