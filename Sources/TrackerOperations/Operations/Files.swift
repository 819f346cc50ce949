import TrackerAPI
import TrackerModel

/// `tracker files PROJECT`: a project's attachments, listed, downloaded (`--download [DIR]`) or removed (`--remove`).
package struct Files: Operation, Equatable {
    package static let spec = CommandSpec(
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

    package enum Format: String, CaseIterable, Sendable {
        case table, tsv, json
    }

    package enum Action: Equatable, Sendable {
        case list(Format?)
        case download(directory: String, force: Bool)
        case remove([String], confirmed: Bool, dryRun: Bool)

        package var isListing: Bool { if case .list = self { true } else { false } }
    }

    package var owner: FileOwner
    package var field: String? = nil
    package var action: Action

    /// Each value given.
    package init(owner: FileOwner, field: String? = nil, action: Action) {
        self.owner = owner
        self.field = field
        self.action = action
    }

    package var opening: SessionOpening { .besideSchema }

    /// The project's (or client's) attachment cell and what it holds now; a remove names its owner exactly.
    package func run(in session: Session) async throws -> FilesRead {
        let reads: Bool = if case .remove = action { false } else { true }
        let holder = try await session.fileHolder(owner, field: field, command: "files", forgiving: reads)
        return FilesRead(holder: holder, attachments: try await holder.current(session.client))
    }
}

extension Files {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
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

/// What `files` read: the cell and the attachments it holds.
package struct FilesRead: Sendable {
    package var holder: FileHolder
    package var attachments: [Attachment]
}
