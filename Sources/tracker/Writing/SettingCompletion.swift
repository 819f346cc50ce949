import TrackerModel
import TrackerOperations

extension Runner {
    /// `done` and `reopen`: the projects printed as they are written, then one line for a person at a terminal.
    func setComplete(_ complete: Bool, targets: [String], mode: WriteMode) async throws {
        var written = writtenOutput(mode)
        let operation = SetCompletion(complete: complete, targets: targets, dryRun: mode.dryRun)
        let outcome = try await perform(operation) { try await operation.run(in: $0) { try written.emit($0) } }
        switch outcome {
        case .planned(let requests): try printPlanned(requests)
        case .written(let count):
            try written.finish()
            let state = complete ? "complete" : "not complete"
            narrate("Marked \(count) project\(count == 1 ? "" : "s") \(state).", mode)
        }
    }
}
