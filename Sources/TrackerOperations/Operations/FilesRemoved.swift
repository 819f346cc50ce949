import TrackerAPI
import TrackerModel

/// What `files --remove` did: the one request it would send (`--dry-run`), or what it removed.
package enum FilesRemoved: Sendable {
    case planned(PlannedRequest)
    /// Every file asked for, and those the cell no longer holds after the write (the face prints their ids).
    case removed(asked: [Attachment], gone: [Attachment])
}

extension Files {
    /// Removes `targets` (ids or file names) from the cell `read` found: every one found before anything is written, the
    /// person asked first unless `confirmed` (the face's question; where nobody can be asked, `--yes` is required), then
    /// one write that keeps the rest, sent through the session.
    package func remove(
        _ targets: [String], from read: FilesRead, confirmed: Bool, dryRun: Bool, in session: Session
    ) async throws -> FilesRemoved {
        let (holder, attachments) = (read.holder, read.attachments)
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
        if dryRun { return .planned(session.client.plannedKeep(keeping, in: holder.cell)) }
        if !confirmed {
            try session.confirmDeleting(
                removing.map { "\($0.id)  \(TextCells.folded($0.filename))" }, noun: "file",
                command: "files --remove", verb: "remove", from: TextCells.folded(holder.name))
        }
        let left = try await session.sending { writes in
            try await writes.keepAttachments(keeping, in: holder.cell, before: attachments)
        }
        let still = Set(left.map(\.id))
        return .removed(asked: removing, gone: removing.filter { !still.contains($0.id) })
    }
}
