import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker attach PROJECT FILE...`: uploads files to a project's attachment field (or a client's logo), each once.
struct Attach: Command {
    static let spec = CommandSpec(
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

    var owner: FileOwner
    var files: [String]
    var field: String? = nil
    var mode = WriteMode()

    func run(_ runner: Runner) async throws { try await runner.attach(self) }
}

extension Attach {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let (owner, rest) = try scanned.fileOwner()
        guard !rest.isEmpty else {
            throw AppError.usage(
                "attach needs one or more files after the project: tracker attach PROJECT FILE...", command: "attach")
        }
        self.init(owner: owner, files: rest, field: try scanned.nonEmpty("--field"), mode: try scanned.writeMode())
    }
}

extension Runner {
    fileprivate func attach(_ options: Attach) async throws {
        // Before any request: a batch with one bad file sends nothing.
        let files = try checkedUploads(options.files, command: "attach")
        let base = try await prepareBase(readingBeside: true)
        let holder = try await base.fileHolder(
            options.owner, field: options.field, command: "attach", forgiving: false)
        if options.mode.dryRun { return try printPlanned(files.map { base.client.plannedUpload($0, to: holder.cell) }) }
        // An upload whose answer is lost may have happened: from the first, the command is never run again.
        let added = try await base.sendingOnce {
            // What the cell held before: a lost answer is settled by looking for an attachment that was not there.
            var known = Set(try await holder.current(base.client).map(\.id))
            var added: [Attachment] = []
            for (index, file) in files.enumerated() {
                let counter = files.count > 1 ? " (\(index + 1)/\(files.count))" : ""
                status?.show("tracker: uploading \(file.filename), \(ByteCount.text(file.size))\(counter)…")
                let progress = uploadProgress(file, label: "tracker: uploading \(file.filename)\(counter)")
                let result = await base.client.uploadOnce(file, to: holder.cell, known: known, progress: progress)
                status?.clear()
                let attachment: Attachment
                switch result {
                case .success(let uploaded): attachment = uploaded
                case .failure(let error) where added.isEmpty: throw error
                case .failure(let error): throw AppError.partialUpload(error, done: added.count, total: files.count)
                }
                known.insert(attachment.id)
                added.append(attachment)
                if !options.mode.quiet && !options.mode.json { try output.standardOutput(attachment.id + "\n") }
            }
            return added
        }
        if options.mode.json { try output.standardOutput(JSONValue.array(added.map(\.object)).serialized() + "\n") }
        let total = files.reduce(0) { $0 + $1.size }
        narrate(
            "Attached \(files.count) file\(files.count == 1 ? "" : "s") (\(ByteCount.text(total))) to \(holder.name).",
            options.mode)
    }

    /// The bytes sent, in the file's bytes (the base64 body is a third larger), and the rate: on a terminal's status
    /// line, and to a face that listens (mcp's progress).
    private func uploadProgress(_ file: UploadFile, label: String) -> (@Sendable (Int64, Int64) -> Void)? {
        let heard = context.notes?.transferred
        guard status != nil || heard != nil else { return nil }
        let line = status
        let started = context.network.now()
        let now = context.network.now
        let size = file.size
        return { sent, total in
            let done = Int(Double(size) * Double(sent) / Double(max(1, total)))
            heard?(done, size)
            let rate = Int(Double(done) / max(0.001, now() - started))
            line?.show("\(label): \(ByteCount.text(done)) of \(ByteCount.text(size)), \(ByteCount.text(rate))/s")
        }
    }
}
