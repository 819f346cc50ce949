#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Files: Command {
    func run(_ runner: Runner) async throws { try await runner.files(self) }
}

extension Runner {
    /// Lists, downloads or removes what the operation read, in its session.
    fileprivate func files(_ options: Files) async throws {
        _ = try await perform(options) { session in
            let read = try await options.run(in: session)
            let (holder, attachments) = (read.holder, read.attachments)
            switch options.action {
            case .list(let format): try listFiles(attachments, holder: holder, format: format)
            case .download(let directory, let force):
                try await download(attachments, holder: holder, into: directory, force: force, session: session)
            case .remove(let targets, let confirmed, let dryRun):
                switch try await options.remove(targets, from: read, confirmed: confirmed, dryRun: dryRun, in: session)
                {
                case .planned(let request): try printPlanned([request])
                case .removed(let asked, let gone):
                    try output.standardOutput(gone.map { $0.id + "\n" }.joined())
                    narrate(
                        "Removed \(asked.count) file\(asked.count == 1 ? "" : "s") from \(holder.name).", WriteMode())
                }
            }
            return read
        }
    }

    /// Saves every attachment in the directory (made safe to write into, never through a link), printing each path as
    /// it is placed; on a terminal the status line shows the bytes, and a line sums up at the end.
    private func download(
        _ attachments: [Attachment], holder: FileHolder, into path: String, force: Bool, session: Session
    ) async throws {
        let directory = try DownloadDirectory(path: absolutePath(path), shown: path)
        var shows: (@Sendable (String?) -> Void)? = nil
        if let line = status {
            shows = { text in
                if let text { line.show(text) } else { line.clear() }
            }
        }
        let interruption = context.interruption
        let done = try await session.download(
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
}
