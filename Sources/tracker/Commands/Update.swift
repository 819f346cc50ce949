import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
extension Runner {
    /// `tracker update`: changes only the given fields of one project (PATCH) and prints its id.
    func update(_ options: UpdateOptions) async throws {
        let base = try await prepareBase()
        let client = base.client
        let notes = try readNotes(options.input.notes, command: "update")
        func check(_ base: Base) async throws -> ProjectWrite {
            try await valueChecker(base, command: "update").write(for: options.input, notes: notes)
        }
        func apply(_ change: ProjectChange) async throws -> Project? {
            var updated: Project?
            try await recheckingOnContradiction(base, recheck: { _ = try await check($0) }) {
                try await client.updateProjects([change]) { updated = $0.first }
            }
            return updated
        }
        // By id, the write itself is the one request; a name is looked up while the values are checked.
        let target = options.target
        let isID = ProjectAPIClient.looksLikeRecordID(target) && !options.mode.dryRun
        async let checked = check(base)
        async let named = isID ? nil : ProjectNaming(client: client).resolve(target)
        let write = try await checked
        var updated: Project?
        let wroteByID = try await writtenByID([target], allowed: isID) { ids in
            updated = try await apply(ProjectChange(id: ids[0], write: write))
        }
        if !wroteByID {
            let project: Project
            if let found = try await named {
                project = found
            } else {
                project = try await ProjectNaming(client: client).resolve(target)
            }
            let change = ProjectChange(id: project.id, write: write)
            if options.mode.dryRun { return try printPlanned(client.plannedUpdates([change])) }
            updated = try await apply(change) ?? project
        }
        guard let updated else { return }
        narrate("Updated \"\(updated.name ?? updated.id)\": \(describe(write, as: updated)).", options.mode)
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
