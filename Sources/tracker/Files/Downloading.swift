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
    /// How many files download at once: enough to hide each request's round trip, few enough for any host.
    static let downloadsAtOnce = 4

    /// Saves every attachment in `directory` (cli-spec.md "Files"): skipped when a file of its size is there, kept and
    /// reported when a different one is (unless `force`), each written aside and renamed when complete, four at a time.
    /// An expired address (403 or 410) reads the record again, once, for fresh ones. Prints the paths written, in the
    /// attachments' order.
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
        // Ctrl-C ends tracker at once: the files being written go with it, so none is left half-written.
        let writing = Locked<Set<String>>([])
        context.interruption.beforeEnding { [directory] in
            for name in writing.withLock({ $0 }) { directory.remove(name) }
        }
        let addresses = FreshAddresses(client: base.client, cell: holder.cell)
        let fetch = DownloadWork(
            directory: directory, client: base.client, addresses: addresses, writing: writing, progress: progress,
            force: force)
        var placed: [Bool?] = Array(repeating: nil, count: wanted.count)
        var printed = 0
        var downloaded = 0
        defer { progress.clear() }
        let work = wanted
        try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            var next = 0
            func start() {
                guard next < work.count else { return }
                let index = next
                let plan = work[index]
                next += 1
                group.addTask { (index, try await fetch.run(plan, holder: holder)) }
            }
            for _ in 0..<Self.downloadsAtOnce { start() }
            while let (index, done) = try await group.next() {
                placed[index] = done
                // In the attachments' order, each as soon as those before it are done.
                while printed < wanted.count, let done = placed[printed] {
                    let shown = directory.path(wanted[printed].name)
                    if done {
                        downloaded += 1
                        try output.standardOutput(shown + "\n")
                    } else {
                        kept.append(shown)
                    }
                    printed += 1
                }
                start()
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

/// The attachments' addresses, read again at most once a command when one has expired (they are signed for about
/// two hours from the read that gave them).
actor FreshAddresses {
    private let client: ProjectAPIClient
    private let cell: AttachmentCell
    private var reading: Task<[String: String], Error>?

    init(client: ProjectAPIClient, cell: AttachmentCell) {
        self.client = client
        self.cell = cell
    }

    /// The fresh addresses by attachment id; the first caller reads the record, the others wait for that read.
    func refreshed() async throws -> [String: String] {
        if let reading { return try await reading.value }
        let client = self.client
        let cell = self.cell
        let task = Task { () throws -> [String: String] in
            let fresh = try await client.attachments(in: cell).get()
            return Dictionary(fresh.compactMap { file in file.url.map { (file.id, $0) } }) { first, _ in first }
        }
        reading = task
        return try await task.value
    }
}

/// One attachment's download: aside, checked, then put in place.
struct DownloadWork: Sendable {
    let directory: DownloadDirectory
    let client: ProjectAPIClient
    let addresses: FreshAddresses
    let writing: Locked<Set<String>>
    let progress: DownloadProgress
    let force: Bool

    /// Whether the file was put in place (false: a different file appeared under its name meanwhile).
    func run(_ plan: DownloadPlan, holder: FileHolder) async throws -> Bool {
        let file = plan.attachment
        let temporary = DownloadDirectory.temporaryName(for: file.id)
        var address = file.url
        var refreshedHere = false
        var attempt = 0
        while true {
            attempt += 1
            guard let text = address, let url = URL(string: text), Runner.isSafeDownload(url) else {
                throw AppError.badResponse(
                    "the address of \(TextCells.folded(file.filename)) is not one tracker will fetch")
            }
            let descriptor = try directory.createTemporary(temporary)
            writing.withLock { _ = $0.insert(temporary) }
            progress.start(file.id, name: plan.name)
            let result = await client.download(url, into: descriptor) { progress.update(file.id, bytes: $0) }
            var info = stat()
            let written = fstat(descriptor, &info) == 0 ? Int(info.st_size) : -1
            close(descriptor)
            func discard() {
                directory.remove(temporary)
                writing.withLock { _ = $0.remove(temporary) }
                progress.forget(file.id)
            }
            switch result {
            case .failure(.http(let status, _)) where (status == 403 || status == 410) && !refreshedHere:
                discard()
                refreshedHere = true
                let fresh = try await addresses.refreshed()
                guard let renewed = fresh[file.id] else {
                    throw AppError.notFound(
                        "\(TextCells.folded(file.filename)) was removed from \(TextCells.folded(holder.name)) during the download",
                        hint: nil)
                }
                address = renewed
                continue
            case .failure(let error):
                discard()
                if case .http(let status, _) = error {
                    throw AppError.network(
                        "the download host answered \(status) for \(TextCells.folded(file.filename))"
                            + (refreshedHere ? ", even at a fresh address" : ""))
                }
                throw error
            case .success:
                if let size = file.size, written != size {
                    discard()
                    guard attempt < 3 else {
                        throw AppError.network(
                            "\(TextCells.folded(file.filename)) arrived with \(written) bytes, not \(size)")
                    }
                    continue
                }
            }
            let placed = try directory.place(temporary, as: plan.name, replacing: force)
            writing.withLock { _ = $0.remove(temporary) }
            progress.finish(file.id, bytes: written)
            return placed
        }
    }
}

/// Files, bytes and rate of a download, on the status line (so only on a terminal).
final class DownloadProgress: Sendable {
    private struct State {
        var finished = 0
        var done = 0
        /// Bytes so far of the files in flight, by attachment id.
        var current: [String: Int] = [:]
        var name = ""
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

    func start(_ id: String, name: String) {
        state.withLock {
            $0.current[id] = 0
            $0.name = name
        }
        show()
    }

    func update(_ id: String, bytes: Int64) {
        state.withLock { $0.current[id] = Int(bytes) }
        show()
    }

    func forget(_ id: String) { state.withLock { $0.current[id] = nil } }

    func finish(_ id: String, bytes: Int) {
        state.withLock {
            $0.current[id] = nil
            $0.done += bytes
            $0.finished += 1
        }
        show()
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
        let (finished, name, received) = state.withLock {
            ($0.finished, $0.name, $0.done + $0.current.values.reduce(0, +))
        }
        let seconds = max(0.001, now() - started)
        let rate = Int(Double(received) / seconds)
        status.show(
            "tracker: downloading \(min(files, finished + 1))/\(files) \(name): \(ByteCount.text(received)) of \(ByteCount.text(bytes)), \(ByteCount.text(rate))/s"
        )
    }
}
