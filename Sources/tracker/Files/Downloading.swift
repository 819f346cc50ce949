#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerSystem
import TrackerModel

/// Where each attachment goes in the directory: a safe, unique name (cli-spec.md "Files"), decided before anything
/// is written so that a rerun gives every attachment the same name.
struct DownloadPlan: Equatable, Sendable {
    var attachment: Attachment
    var name: String

    /// The attachments' names in order: made safe, a second of one name ` (2)` before the extension.
    static func names(for attachments: [Attachment]) -> [DownloadPlan] {
        var used: Set<String> = []
        return attachments.map { attachment in
            let safe = FileNames.safe(attachment.filename, id: attachment.id)
            var name = safe
            var number = 2
            while used.contains(name) {
                name = FileNames.numbered(safe, number)
                number += 1
            }
            used.insert(name)
            return DownloadPlan(attachment: attachment, name: name)
        }
    }
}

/// The directory files are saved in, held open: every file is created, checked and renamed relative to it, by a
/// plain name, so nothing is written outside it or through a symbolic link.
final class DownloadDirectory: Sendable {
    let descriptor: Int32
    /// The directory as the user typed it, for the paths printed.
    let shown: String

    /// Opens (creating) `path`; a directory that cannot be made or written to is one line and exit 1.
    init(path: String, shown: String) throws {
        let code = POSIX.makeDirectories(path)
        guard code == 0 else { throw AppError.output("\(TextCells.folded(shown)): \(POSIX.describe(code))") }
        let descriptor = POSIX.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw AppError.output("\(TextCells.folded(shown)): \(POSIX.describe(errno))") }
        guard access(path, W_OK | X_OK) == 0 else {
            let reason = POSIX.describe(errno)
            close(descriptor)
            throw AppError.output("\(TextCells.folded(shown)): \(reason)")
        }
        self.descriptor = descriptor
        self.shown = shown
    }

    deinit { close(descriptor) }

    /// `DIR/name` as printed.
    func path(_ name: String) -> String { shown == "." ? name : (shown.hasSuffix("/") ? shown : shown + "/") + name }

    /// What is at `name` now, never following a symbolic link.
    enum Existing: Equatable {
        case nothing
        case file(size: Int)
        /// A symbolic link: never written through; `--force` replaces the link itself.
        case link
        /// A directory or anything else.
        case other
    }

    func existing(_ name: String) -> Existing {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .nothing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(size: Int(info.st_size))
        case S_IFLNK: return .link
        default: return .other
        }
    }

    /// The name an attachment is written to until complete: hidden, and the same on a rerun, which clears what an
    /// interrupted run (kill -9) left.
    static func temporaryName(for id: String) -> String { ".tracker-\(FileNames.safe(id, id: id)).part" }

    /// Creates the temporary file afresh, refusing to open it through a link; its descriptor.
    func createTemporary(_ name: String) throws -> Int32 {
        if unlinkat(descriptor, name, 0) != 0 && errno != ENOENT {
            throw AppError.output("\(TextCells.folded(path(name))): \(POSIX.describe(errno))")
        }
        let file = openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard file >= 0 else { throw AppError.output("\(TextCells.folded(path(name))): \(POSIX.describe(errno))") }
        return file
    }

    func remove(_ name: String) { unlinkat(descriptor, name, 0) }

    /// Puts the complete file in place: without `replacing`, only where nothing is (a hard link, which never
    /// replaces; false when something appeared meanwhile); with it, over what is there (a link itself, not its
    /// target).
    func place(_ temporary: String, as name: String, replacing: Bool) throws -> Bool {
        defer { unlinkat(descriptor, temporary, 0) }
        if !replacing {
            if linkat(descriptor, temporary, descriptor, name, 0) == 0 { return true }
            if errno == EEXIST { return false }
            // A file system without hard links: a rename, after checking again that nothing is there.
            guard existing(name) == .nothing else { return false }
        }
        guard renameat(descriptor, temporary, descriptor, name) == 0 else {
            throw AppError.output("\(TextCells.folded(path(name))): \(POSIX.describe(errno))")
        }
        return true
    }
}

extension Runner {
    /// Saves every attachment in `directory` (cli-spec.md "Files"): skipped when a file of its size is there, kept and
    /// reported when a different one is (unless `force`), each written aside and renamed when complete. An expired
    /// address (403 or 410) reads the record again, once, for fresh ones. Prints the paths written.
    func download(_ attachments: [Attachment], holder: FileHolder, into path: String, force: Bool, base: Base)
        async throws
    {
        let directory = try DownloadDirectory(path: absolutePath(path), shown: path)
        let plans = DownloadPlan.names(for: attachments)
        var wanted: [DownloadPlan] = []
        var kept: [String] = []
        for plan in plans {
            switch directory.existing(plan.name) {
            case .nothing: wanted.append(plan)
            case .file(let size) where size == plan.attachment.size: continue
            case .file, .link: if force { wanted.append(plan) } else { kept.append(directory.path(plan.name)) }
            case .other: kept.append(directory.path(plan.name))
            }
        }
        let skipped = plans.count - wanted.count - kept.count
        let progress = DownloadProgress(
            status: status, files: wanted.count, bytes: wanted.reduce(0) { $0 + ($1.attachment.size ?? 0) },
            now: context.network.now)
        // Ctrl-C ends tracker at once: the file being written goes with it, so none is left half-written.
        let current = Locked<String?>(nil)
        context.interruption.beforeEnding { [directory] in
            if let name = current.withLock({ $0 }) { directory.remove(name) }
        }
        var addresses: [String: String] = [:]
        var refreshed = false
        var downloaded = 0
        for (index, plan) in wanted.enumerated() {
            var attempt = 0
            while true {
                attempt += 1
                let address = addresses[plan.attachment.id] ?? plan.attachment.url
                guard let address, let url = URL(string: address), Self.isSafeDownload(url) else {
                    throw AppError.badResponse(
                        "the address of \(TextCells.folded(plan.attachment.filename)) is not one tracker will fetch")
                }
                let temporary = DownloadDirectory.temporaryName(for: plan.attachment.id)
                let file = try directory.createTemporary(temporary)
                current.withLock { $0 = temporary }
                progress.start(index: index, name: plan.name)
                let result = await base.client.download(url, into: file) { progress.update(bytes: $0) }
                var info = stat()
                let written = fstat(file, &info) == 0 ? Int(info.st_size) : -1
                close(file)
                switch result {
                case .failure(.http(let status, _)) where (status == 403 || status == 410) && !refreshed:
                    // Signed addresses expire about two hours after the read that gave them.
                    directory.remove(temporary)
                    current.withLock { $0 = nil }
                    refreshed = true
                    let fresh = try await base.client.attachments(in: holder.cell).get()
                    for attachment in fresh { addresses[attachment.id] = attachment.url }
                    guard addresses[plan.attachment.id] != nil else {
                        throw AppError.notFound(
                            "\(TextCells.folded(plan.attachment.filename)) was removed from \(TextCells.folded(holder.name)) during the download",
                            hint: nil)
                    }
                    continue
                case .failure(let error):
                    directory.remove(temporary)
                    current.withLock { $0 = nil }
                    progress.clear()
                    if case .http(let status, _) = error {
                        throw AppError.network(
                            "the download host answered \(status) for \(TextCells.folded(plan.attachment.filename))"
                                + (refreshed ? ", even at a fresh address" : ""))
                    }
                    throw error
                case .success:
                    if let size = plan.attachment.size, written != size {
                        directory.remove(temporary)
                        current.withLock { $0 = nil }
                        guard attempt < 3 else {
                            progress.clear()
                            throw AppError.network(
                                "\(TextCells.folded(plan.attachment.filename)) arrived with \(written) bytes, not \(size)"
                            )
                        }
                        continue
                    }
                }
                let placed = try directory.place(temporary, as: plan.name, replacing: force)
                current.withLock { $0 = nil }
                progress.finish(bytes: written)
                if placed {
                    downloaded += 1
                    try output.standardOutput(directory.path(plan.name) + "\n")
                } else {
                    kept.append(directory.path(plan.name))
                }
                break
            }
        }
        progress.clear()
        if output.isStderrTerminal {
            var parts = ["\(downloaded) downloaded"]
            if skipped > 0 { parts.append("\(skipped) already there") }
            output.standardError(
                "\(TextCells.folded(holder.name)): \(parts.joined(separator: ", ")) (\(ByteCount.text(progress.total)) in \(progress.elapsed))\n"
            )
        }
        if !kept.isEmpty { throw AppError.filesKept(kept.map(TextCells.folded)) }
    }

    /// An address tracker fetches: https, or plain http to this machine only (a test's or the demo's host).
    static func isSafeDownload(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return ["127.0.0.1", "127.0.0.2", "localhost", "::1"].contains(url.host ?? "")
        default: return false
        }
    }
}

/// Files, bytes and rate of a download, on the status line (so only on a terminal).
final class DownloadProgress: Sendable {
    private struct State {
        var index = 0
        var name = ""
        var done = 0
        var current = 0
    }
    private let status: StatusLine?
    private let files: Int
    private let bytes: Int
    private let now: @Sendable () -> Double
    private let started: Double
    private let state = Locked(State())

    init(status: StatusLine?, files: Int, bytes: Int, now: @escaping @Sendable () -> Double) {
        self.status = status
        self.files = files
        self.bytes = bytes
        self.now = now
        started = now()
    }

    func start(index: Int, name: String) {
        state.withLock {
            $0.index = index
            $0.name = name
            $0.current = 0
        }
        show()
    }

    func update(bytes: Int64) {
        state.withLock { $0.current = Int(bytes) }
        show()
    }

    func finish(bytes: Int) {
        state.withLock {
            $0.done += bytes
            $0.current = 0
        }
    }

    func clear() { status?.clear() }

    /// Bytes written so far.
    var total: Int { state.withLock { $0.done } }

    /// `1.2s`.
    var elapsed: String {
        let seconds = now() - started
        return seconds < 10 ? String(Double(Int(seconds * 10)) / 10) + "s" : "\(Int(seconds))s"
    }

    private func show() {
        guard let status else { return }
        let (index, name, received) = state.withLock { ($0.index, $0.name, $0.done + $0.current) }
        let seconds = max(0.001, now() - started)
        let rate = Int(Double(received) / seconds)
        status.show(
            "tracker: downloading \(index + 1)/\(files) \(name): \(ByteCount.text(received)) of \(ByteCount.text(bytes)), \(ByteCount.text(rate))/s"
        )
    }
}
