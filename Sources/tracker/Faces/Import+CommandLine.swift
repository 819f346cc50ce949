#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Import: Command {
    func run(_ runner: Runner) async throws { try await runner.importProjects(self) }
}

extension Runner {
    /// The rows read from the file or stdin, the import run: the plan (a dry run's whole answer) narrated, then each
    /// written row said as it is written (`--json`), with a progress line on a terminal; Ctrl-C stops it between
    /// requests.
    fileprivate func importProjects(_ options: Import) async throws {
        var options = options
        options.text = try readImportText(options.file)
        let mode = options.mode
        let verbs = mode.dryRun ? ("create", "update", "unchanged") : ("created", "updated", "unchanged")
        var progress: ProgressLine?
        var written = 0
        let plan = try await perform(options) { session in
            try await options.run(in: session) { event in
                switch event {
                case .planned(let plan) where mode.dryRun:
                    if mode.json {
                        for entry in plan.entries {
                            let (verb, id) = entry.action.planned
                            try emitRow(entry.line, verb, id)
                        }
                    } else if !mode.quiet {
                        try output.standardOutput("would " + plan.summary(verbs) + "\n")
                    }
                case .planned(let plan):
                    narrate("Plan: " + plan.summary(("create", "update", "leave unchanged")) + ".", mode)
                    if mode.json {
                        for entry in plan.entries {
                            if case .unchanged(let project) = entry.action {
                                try emitRow(entry.line, "unchanged", project.id)
                            }
                        }
                    }
                    let total = plan.creates + plan.updates
                    if !mode.quiet && total > 0, let status {
                        progress = ProgressLine(status: status, label: "import", total: total, now: context.network.now)
                    }
                    context.interruption.stopBetweenRequests(
                        notice: "tracker: stopping after the request in flight (Ctrl-C again to stop at once)…")
                    progress?.update(done: 0)
                case .written(let lines, let projects, let action):
                    if mode.json {
                        for (line, project) in zip(lines, projects) { try emitRow(line, action, project.id) }
                    }
                    written += projects.count
                    progress?.update(done: written)
                    if context.interruption.isRequested { throw AppError.interrupted }
                }
            }
        }
        status?.clear()
        if !mode.dryRun && !mode.json && !mode.quiet { try output.standardOutput(plan.summary(verbs) + "\n") }
    }

    /// One row of `--json`: `{"line", "id", "action"}`.
    private func emitRow(_ line: Int, _ action: String, _ id: String?) throws {
        try output.standardOutput(
            JSONValue.object([("line", .number(Double(line))), ("id", .string(or: id)), ("action", .string(action))])
                .serialized() + "\n")
    }

    /// The text to import: the file, or standard input when there is none or it is `-`.
    private func readImportText(_ file: String?) throws -> String {
        let data: Data
        if let file, file != "-" {
            data = try contents(ofFile: file, naming: file)
        } else {
            guard !context.isStdinTerminal else {
                throw AppError.usage("import reads a FILE, or rows piped to it; give a file name", command: "import")
            }
            data = context.readStandardInput()
        }
        guard let text = String(data: data, encoding: .utf8) else {
            // As for --notes-file: the file given is not what the command reads.
            throw AppError.usage(
                "\(file.map { $0 == "-" ? "stdin" : $0 } ?? "stdin") is not UTF-8 text; import reads UTF-8 CSV, NDJSON or JSON",
                command: "import")
        }
        return text
    }
}
