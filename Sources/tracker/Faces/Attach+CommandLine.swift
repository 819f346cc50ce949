import TrackerAPI
import TrackerModel
import TrackerOperations

extension Attach: Command {
    func run(_ runner: Runner) async throws {
        var options = self
        // Before any request: a batch with one bad file sends nothing.
        options.uploads = try UploadChecks.files(
            options.files, command: "attach", relativeTo: runner.context.currentDirectory)
        let (status, context) = (runner.status, runner.context)
        let watch = UploadWatch(
            starting: { file, index, count in
                let counter = count > 1 ? " (\(index + 1)/\(count))" : ""
                status?.show("tracker: uploading \(file.filename), \(ByteCount.text(file.size))\(counter)…")
                return Attach.uploadProgress(
                    file, label: "tracker: uploading \(file.filename)\(counter)", status: status, context: context)
            }, ended: { status?.clear() })
        let outcome = try await runner.perform(options) { session in
            try await options.run(in: session, watching: watch) { attachment in
                if !options.mode.quiet && !options.mode.json { try runner.output.standardOutput(attachment.id + "\n") }
            }
        }
        switch outcome {
        case .planned(let requests): try runner.printPlanned(requests)
        case .attached(let added, let name, let total):
            if options.mode.json {
                try runner.output.standardOutput(JSONValue.array(added.map(\.object)).serialized() + "\n")
            }
            runner.narrate(
                "Attached \(added.count) file\(added.count == 1 ? "" : "s") (\(ByteCount.text(total))) to \(name).",
                options.mode)
        }
    }
}

extension Attach {
    /// The bytes sent, in the file's bytes (the base64 body is a third larger), and the rate: on a terminal's status
    /// line.
    static func uploadProgress(_ file: UploadFile, label: String, status: StatusLine?, context: Context) -> (
        @Sendable (Int64, Int64) -> Void
    )? {
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
