#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerSystem
import TrackerModel
import TrackerOperations

extension Files: Command {
    func run(_ runner: Runner) async throws { try await runner.files(self) }
}

extension Runner {
    /// Lists, downloads or removes what the operation read, in its session.
    fileprivate func files(_ options: Files) async throws {
        _ = try await perform(options) { base in
            let read = try await options.run(in: base)
            let (holder, attachments) = (read.holder, read.attachments)
            switch options.action {
            case .list(let format): try listFiles(attachments, holder: holder, format: format)
            case .download(let directory, let force):
                try await download(attachments, holder: holder, into: directory, force: force, base: base)
            case .remove(let targets, let confirmed, let dryRun):
                try await removeFiles(
                    targets, from: attachments, holder: holder, confirmed: confirmed, dryRun: dryRun, base: base)
            }
            return read
        }
    }

    /// Saves every attachment in the directory (made safe to write into, never through a link), printing each path as
    /// it is placed; on a terminal the status line shows the bytes, and a line sums up at the end.
    private func download(
        _ attachments: [Attachment], holder: FileHolder, into path: String, force: Bool, base: Session
    ) async throws {
        let directory = try DownloadDirectory(path: absolutePath(path), shown: path)
        var shows: (@Sendable (String?) -> Void)? = nil
        if let line = status {
            shows = { text in
                if let text { line.show(text) } else { line.clear() }
            }
        }
        let interruption = context.interruption
        let done = try await base.download(
            attachments, holder: holder, into: directory, force: force, status: shows,
            heard: nil, beforeEnding: { interruption.beforeEnding($0) },
            placed: { try output.standardOutput($0 + "\n") })
        if output.isStderrTerminal {
            var parts = ["\(done.downloaded) downloaded"]
            if done.skipped > 0 { parts.append("\(done.skipped) already there") }
            output.standardError(
                "\(TextCells.folded(holder.name)): \(parts.joined(separator: ", ")) (\(ByteCount.text(done.bytes)) in \(done.elapsed))\n"
            )
        }
        if !done.kept.isEmpty { throw AppError.filesKept(done.kept.map(TextCells.folded)) }
    }

    private func listFiles(_ attachments: [Attachment], holder: FileHolder, format: Files.Format?) throws {
        switch format ?? (output.isStdoutTerminal ? .table : .tsv) {
        case .json:
            try output.standardOutput(JSONValue.array(attachments.map(\.object)).serialized() + "\n")
        case .tsv:
            try output.standardOutput(
                attachments.map { file in
                    [file.id, file.filename, file.size.map(String.init) ?? "", file.type ?? "", file.url ?? ""]
                        .map(TextCells.folded).joined(separator: "\t") + "\n"
                }.joined())
        case .table:
            guard !attachments.isEmpty else {
                output.standardError(
                    "No files in \"\(TextCells.folded(holder.cell.field))\" of \(TextCells.folded(holder.name)).\n")
                return
            }
            try output.standardOutput(FileTable.render(attachments, width: output.terminalWidth ?? 80, style: style))
        }
    }

    private func removeFiles(
        _ targets: [String], from attachments: [Attachment], holder: FileHolder, confirmed: Bool, dryRun: Bool,
        base: Session
    ) async throws {
        var removing: [Attachment] = []
        for target in targets {
            let matches = attachments.filter { $0.id == target || $0.filename == target }
            guard !matches.isEmpty else {
                let names = attachments.map(\.filename)
                let guess = Suggestion.question(ProjectNaming.closest(to: target, among: names)).map { " " + $0 } ?? ""
                throw AppError.notFound(
                    "no file \"\(TextCells.folded(target))\" in \(TextCells.folded(holder.name)).\(guess)", hint: nil)
            }
            guard matches.count == 1 else {
                throw AppError.usage(
                    "\(matches.count) files are named \"\(TextCells.folded(target))\": "
                        + matches.map(\.id).joined(separator: ", ") + "; pass one of the ids", command: "files")
            }
            if !removing.contains(matches[0]) { removing.append(matches[0]) }
        }
        let keeping = attachments.filter { !removing.contains($0) }.map(\.id)
        if dryRun { return try printPlanned([base.client.plannedKeep(keeping, in: holder.cell)]) }
        if !confirmed {
            try confirmDeleting(
                removing.map { "\($0.id)  \(TextCells.folded($0.filename))" }, noun: "file",
                command: "files --remove", verb: "remove", from: TextCells.folded(holder.name))
        }
        let left = try await base.client.keepAttachments(keeping, in: holder.cell).get()
        let gone = Set(left.map(\.id))
        try output.standardOutput(removing.filter { !gone.contains($0.id) }.map { $0.id + "\n" }.joined())
        narrate("Removed \(removing.count) file\(removing.count == 1 ? "" : "s") from \(holder.name).", WriteMode())
    }
}
