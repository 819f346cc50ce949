#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerSystem
import TrackerModel
import TrackerOperations

/// `tracker files PROJECT`: a project's attachments, listed, downloaded (`--download [DIR]`) or removed (`--remove`).
struct Files: Command {
    static let spec = CommandSpec(
        name: "files", summary: "List, download or remove a project's attachments.",
        usage: [
            "tracker files ID|NAME [--field NAME] [--json | --format table|tsv|json]",
            "tracker files ID|NAME --download [DIR] [--force]",
            "tracker files ID|NAME --remove FILENAME|ID... [--yes] [--dry-run]",
            "tracker files --client NAME|ID [--download [DIR]]",
        ],
        positional: "ID|NAME", arguments: .projectThenDirectory,
        flags: FileOwner.flags + [
            FlagSpec(name: "--download", help: "save every attachment in DIR (after the project; default .)"),
            FlagSpec(name: "--force", help: "with --download: replace a different file of the same name"),
            FlagSpec(name: "--remove", help: "remove the attachments named after the project (filenames or att… ids)"),
            FlagSpec(name: "--yes", short: "-y", help: "with --remove: do not ask"),
            FlagSpec(name: "--dry-run", help: "with --remove: print the request instead of sending it"),
            FlagSpec(
                name: "--format", value: "FORMAT", choices: Format.allCases.map(\.rawValue),
                help: "table (on a terminal), tsv (piped) or json (Airtable's attachment objects)"),
            FlagSpec(name: "--json", help: "the same as --format json"),
        ],
        examples: [
            "tracker files \"Coffee packaging\"", "tracker files \"Coffee packaging\" --download mockups",
            "tracker files rec3g0Xxmw2rw3scs --remove old-draft.png --yes", "tracker files --client Acme --download",
        ],
        notes: [
            "TSV: id, filename, size in bytes, type, address (addresses are signed and expire in about two hours).",
            "--download writes each file aside and renames it when complete; a file already there with the same",
            "size is skipped, so a rerun fetches only what is missing; a different file of that name is kept (exit",
            "1) unless --force. Names from Airtable that are not plain file names are made safe; nothing is written",
            "outside DIR or through a symbolic link. The token never goes to the download host.",
        ])

    enum Format: String, CaseIterable, Sendable {
        case table, tsv, json
    }

    enum Action: Equatable, Sendable {
        case list(Format?)
        case download(directory: String, force: Bool)
        case remove([String], confirmed: Bool, dryRun: Bool)

        var isListing: Bool { if case .list = self { true } else { false } }
    }

    var owner: FileOwner
    var field: String? = nil
    var action: Action

    func run(_ runner: Runner) async throws { try await runner.files(self) }
}

extension Files {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let (owner, rest) = try scanned.fileOwner()
        try scanned.rejectTogether("--download", "--remove")
        let format = try scanned.formatName().flatMap(Format.init(rawValue:))
        if scanned.has("--force") && !scanned.has("--download") {
            throw AppError.usage("--force goes with --download", command: "files")
        }
        for flag in ["--yes", "--dry-run"] where scanned.has(flag) && !scanned.has("--remove") {
            throw AppError.usage("\(flag) goes with --remove", command: "files")
        }
        let action: Action
        if scanned.has("--download") {
            guard rest.count <= 1 else {
                throw AppError.usage("--download takes one directory, after the project", command: "files")
            }
            action = .download(directory: rest.first ?? ".", force: scanned.has("--force"))
        } else if scanned.has("--remove") {
            guard !rest.isEmpty else {
                throw AppError.usage(
                    "--remove needs the filenames or ids to remove, after the project", command: "files")
            }
            action = .remove(rest, confirmed: scanned.has("--yes"), dryRun: scanned.has("--dry-run"))
        } else {
            guard rest.isEmpty else {
                throw AppError.usage(
                    "files takes one project; to save its files, add --download DIR", command: "files")
            }
            action = .list(format)
        }
        if format != nil && !action.isListing {
            throw AppError.usage(
                "--format and --json go with the listing, not --download or --remove", command: "files")
        }
        self.init(owner: owner, field: try scanned.nonEmpty("--field"), action: action)
    }
}

extension Runner {
    fileprivate func files(_ options: Files) async throws {
        let base = try await prepareBase(readingBeside: true)
        let reads: Bool = if case .remove = options.action { false } else { true }
        let holder = try await base.fileHolder(
            options.owner, field: options.field, command: "files", forgiving: reads)
        let attachments = try await holder.current(base.client)
        switch options.action {
        case .list(let format): try listFiles(attachments, holder: holder, format: format)
        case .download(let directory, let force):
            try await download(attachments, holder: holder, into: directory, force: force, base: base)
        case .remove(let targets, let confirmed, let dryRun):
            try await removeFiles(
                targets, from: attachments, holder: holder, confirmed: confirmed, dryRun: dryRun, base: base)
        }
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
