import TrackerAPI
import TrackerModel
import TrackerOperations

extension Attach: Command {
    func run(_ runner: Runner) async throws { try await runner.attach(self) }
}

extension Runner {
    fileprivate func attach(_ options: Attach) async throws {
        var options = options
        // Before any request: a batch with one bad file sends nothing.
        options.uploads = try UploadChecks.files(options.files, command: "attach", relativeTo: context.currentDirectory)
        let status = status
        let watch = UploadWatch(
            starting: { file, index, count in
                let counter = count > 1 ? " (\(index + 1)/\(count))" : ""
                status?.show("tracker: uploading \(file.filename), \(ByteCount.text(file.size))\(counter)…")
                return uploadProgress(file, label: "tracker: uploading \(file.filename)\(counter)")
            }, ended: { status?.clear() })
        let outcome = try await perform(options) { session in
            try await options.run(in: session, watching: watch) { attachment in
                if !options.mode.quiet && !options.mode.json { try output.standardOutput(attachment.id + "\n") }
            }
        }
        switch outcome {
        case .planned(let requests): try printPlanned(requests)
        case .attached(let added, let name, let total):
            if options.mode.json { try output.standardOutput(JSONValue.array(added.map(\.object)).serialized() + "\n") }
            narrate(
                "Attached \(added.count) file\(added.count == 1 ? "" : "s") (\(ByteCount.text(total))) to \(name).",
                options.mode)
        }
    }

    /// The bytes sent, in the file's bytes (the base64 body is a third larger), and the rate: on a terminal's status
    /// line.
    private func uploadProgress(_ file: UploadFile, label: String) -> (@Sendable (Int64, Int64) -> Void)? {
        guard let line = status else { return nil }
        let started = context.network.now()
        let now = context.network.now
        let size = file.size
        return { sent, total in
            let done = Int(Double(size) * Double(sent) / Double(max(1, total)))
            let rate = Int(Double(done) / max(0.001, now() - started))
            line.show("\(label): \(ByteCount.text(done)) of \(ByteCount.text(size)), \(ByteCount.text(rate))/s")
        }
    }
}
