extension Runner {
    /// `tracker update`: changes only the given fields of one project (PATCH) and prints its id.
    func update(_ options: UpdateOptions) async throws {
        let base = try await prepareBase()
        let client = base.client
        let project = try await ProjectNaming(client: client).resolve(options.target)
        let notes = try readNotes(options.input.notes, command: "update")
        func check(_ base: Base) async throws -> ProjectWrite {
            try await valueChecker(base, command: "update").write(for: options.input, notes: notes)
        }
        let change = ProjectChange(id: project.id, write: try await check(base))
        if options.mode.dryRun { return try printPlanned(client.plannedUpdates([change])) }
        var updated = project
        try await recheckingOnContradiction(base, recheck: { _ = try await check($0) }) {
            try await client.updateProjects([change]) { updated = $0.first ?? updated }
        }
        narrate("Updated \"\(updated.name ?? updated.id)\": \(describe(change.write, as: updated)).", options.mode)
        try printWritten(updated, options.mode)
    }
}

extension Runner {
    /// What a write changed, in words: `due 2026-11-27 (in 5 days), notes cleared, Budget`.
    func describe(_ write: ProjectWrite, as project: Project) -> String {
        write.cells.map { target, value in
            guard case .word(let word) = target else {
                let name = ProjectWrite.fieldName(target, .template) ?? ""
                return value == .null ? "\(name) cleared" : name
            }
            if value == .null && word != .complete { return "\(word.rawValue) cleared" }
            switch word {
            case .due: return "due " + (project.due.map { "\($0) (\($0.relative(to: today)))" } ?? "?")
            case .kickoff: return "kickoff " + (project.kickoff?.description ?? "?")
            case .complete: return project.isComplete ? "complete" : "not complete"
            case .name: return "renamed"
            case .category: return "category \(project.category ?? "?")"
            case .lead: return "lead \(project.lead?.displayName ?? "?")"
            case .team: return "team of \(project.team.count)"
            case .client: return "\(project.clients.count) client\(project.clients.count == 1 ? "" : "s")"
            case .notes: return "notes"
            }
        }.joined(separator: ", ")
    }
}
