import TrackerAPI
import TrackerModel

/// `tracker attach PROJECT FILE...`: uploads files to a project's attachment field (or a client's logo), each once.
package struct Attach: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "attach", summary: "Upload files to a project's attachment field (Project images).",
        usage: [
            "tracker attach ID|NAME FILE... [--field NAME] [--json | -q] [--dry-run]",
            "tracker attach --client NAME|ID FILE... [--field NAME]",
        ],
        positional: "ID|NAME FILE...", arguments: .projectThenFiles,
        flags: FileOwner.flags + CommandSpec.writeFlags,
        examples: [
            "tracker attach \"Coffee packaging\" mockup-v2.png",
            "tracker attach rec3g0Xxmw2rw3scs brief.pdf sketches/*.jpg",
            "tracker attach --client Acme logo.svg",
        ],
        notes: [
            "Every file is checked before anything is sent: a regular, readable file of at most 5 MB (Airtable's",
            "limit for uploads). Existing attachments stay. Prints each new attachment's id (att…), one a line.",
            "An upload whose answer is lost is looked for on the record before anything is sent again: never two",
            "copies. Uploads go to content.airtable.com (or the secrets file's endpoint), paced with the base's",
            "other requests. Needs data.records:write.",
        ])

    package var owner: FileOwner
    package var files: [String]
    package var field: String? = nil
    package var mode = WriteMode()
    /// The files, checked by the face before any request (a batch with one bad file sends nothing).
    package var uploads: [UploadFile] = []

    /// Each value given.
    package init(owner: FileOwner, files: [String], field: String? = nil, mode: WriteMode = WriteMode()) {
        self.owner = owner
        self.files = files
        self.field = field
        self.mode = mode
    }

    package var opening: SessionOpening { .besideSchema }

    package func run(in session: Session) async throws -> Attached {
        try await run(in: session, watching: UploadWatch()) { _ in }
    }

    /// Uploads each file once to the cell: `watch` hears each upload start, move and end; `added` each attachment as
    /// Airtable confirms it. An upload whose answer is lost may have happened: from the first, the command is never
    /// run again, and a lost answer is settled by looking for an attachment that was not there before.
    package func run(in session: Session, watching watch: UploadWatch, added: (Attachment) throws -> Void) async throws
        -> Attached
    {
        let holder = try await session.fileHolder(owner, field: field, command: "attach", forgiving: false)
        let files = uploads
        if mode.dryRun { return .planned(files.map { session.client.plannedUpload($0, to: holder.cell) }) }
        let attached = try await session.sendingOnce { sends in
            var known = Set(try await holder.current(session.client).map(\.id))
            var attached: [Attachment] = []
            for (index, file) in files.enumerated() {
                let progress = watch.starting(file, index, files.count)
                let result = await sends.upload(file, to: holder.cell, known: known, progress: progress)
                watch.ended()
                let attachment: Attachment
                switch result {
                case .success(let uploaded): attachment = uploaded
                case .failure(let error) where attached.isEmpty: throw error
                case .failure(let error): throw AppError.partialUpload(error, done: attached.count, total: files.count)
                }
                known.insert(attachment.id)
                attached.append(attachment)
                try added(attachment)
            }
            return attached
        }
        return .attached(attached, to: holder.name, bytes: files.reduce(0) { $0 + $1.size })
    }
}

/// What a face hears of uploads as they go: each one starting (the file, its place, how many; it answers with what
/// hears the bytes sent) and ending.
package struct UploadWatch {
    package var starting: (UploadFile, _ index: Int, _ count: Int) -> (@Sendable (Int64, Int64) -> Void)? = { _, _, _ in
        nil
    }
    package var ended: () -> Void = {}

    /// Each value given.
    package init(
        starting: @escaping (UploadFile, _ index: Int, _ count: Int) -> (@Sendable (Int64, Int64) -> Void)? = {
            _, _, _ in nil
        }, ended: @escaping () -> Void = {}
    ) {
        self.starting = starting
        self.ended = ended
    }
}

/// What `attach` came to: the requests a dry run would send, or the attachments added to the holder named.
package enum Attached: Sendable {
    case planned([PlannedRequest])
    case attached([Attachment], to: String, bytes: Int)
}

extension Attach {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let (owner, rest) = try scanned.fileOwner()
        guard !rest.isEmpty else {
            throw AppError.usage(
                "attach needs one or more files after the project: tracker attach PROJECT FILE...", command: "attach")
        }
        self.init(owner: owner, files: rest, field: try scanned.nonEmpty("--field"), mode: try scanned.writeMode())
    }
}
