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

extension Runner {
    /// Finds every project named before writing, then sets the completion field (a checkbox, or the select's done
    /// or open choice) ten projects a request. A project already in that state is not written, but it is printed like
    /// the others.
    func setComplete(_ complete: Bool, targets: [String], mode: WriteMode, command: String) async throws {
        // Cold, the write by ids (or the find by names) goes out beside the schema read.
        let base = try await prepareBase(readingBeside: true)
        let client = base.client
        let value = try await base.checker(command: command).completionValue(complete, flag: command)
        let write = ProjectWrite([(.complete, value)])
        var written = writtenOutput(mode)
        func apply(_ changes: [ProjectChange]) async throws {
            try await base.writing(recheck: { _ = try await $0.checker(command: command) }) {
                try await client.updateProjects(changes) { try written.emit($0) }
            }
        }
        // By ids alone the write is the one request (setting a value twice changes nothing).
        var count = Set(targets).count
        let wroteByID = try await base.writtenByID(targets, allowed: !mode.dryRun) { ids in
            try await apply(ids.map { ProjectChange(id: $0, write: write) })
        }
        if !wroteByID {
            let projects = try await base.namingForWrites().resolve(all: targets)
            _ = try await base.confirmedLayout()
            let changes = projects.filter { $0.isComplete != complete }.map { ProjectChange(id: $0.id, write: write) }
            if mode.dryRun { return try printPlanned(client.plannedUpdates(changes)) }
            try written.emit(projects.filter { $0.isComplete == complete })
            try await apply(changes)
            count = projects.count
        }
        try written.finish()
        await base.finish()
        let state = complete ? "complete" : "not complete"
        narrate("Marked \(count) project\(count == 1 ? "" : "s") \(state).", mode)
    }
}
