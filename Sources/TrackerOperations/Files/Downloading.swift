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

/// Where each attachment goes in the directory: a safe, unique name (docs/contract.md "Files"), decided before anything
/// is written so that a rerun gives every attachment the same name.
package struct DownloadPlan: Equatable, Sendable {
    package var attachment: Attachment
    package var name: String

    /// The attachments' names in order: made safe, a second of one name ` (2)` before the extension.
    package static func names(for attachments: [Attachment]) -> [DownloadPlan] {
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

/// What a download came to: how many files were written, how many were there already, the paths kept because a
/// different file had the name, and the bytes written in how long.
package struct Downloaded: Sendable {
    package var downloaded: Int
    package var skipped: Int
    package var kept: [String]
    package var bytes: Int
    package var elapsed: String
}

extension Session {
    /// How many files download at once: enough to hide each request's round trip, few enough for any host.
    package static let downloadsAtOnce = 4

    /// Saves every attachment in `directory`: skipped when a file of its size is there, kept and reported when a
    /// different one is (unless `force`), each written aside and renamed when complete, four at a time. An expired
    /// address (403 or 410) reads the record again, once, for fresh ones. `placed` hears the paths written, in the
    /// attachments' order; `beforeEnding` is given what must run should the process end at once (the files being
    /// written are removed, so none is left half-written).
    package func download(
        _ attachments: [Attachment], holder: FileHolder, into directory: DownloadDirectory, force: Bool,
        status: (@Sendable (String?) -> Void)?, heard: (@Sendable (Int, Int) -> Void)?,
        beforeEnding: (@escaping @Sendable () -> Void) -> Void, placed: (String) throws -> Void
    ) async throws -> Downloaded {
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
            now: surroundings.network.now, heard: heard)
        let writing = Locked<Set<String>>([])
        beforeEnding { [directory] in
            for name in writing.withLock({ $0 }) { directory.remove(name) }
        }
        let addresses = FreshAddresses(client: client, cell: holder.cell)
        let fetch = DownloadWork(
            directory: directory, client: client, addresses: addresses, writing: writing, progress: progress,
            force: force)
        var done: [Bool?] = Array(repeating: nil, count: wanted.count)
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
            while let (index, isPlaced) = try await group.next() {
                done[index] = isPlaced
                // In the attachments' order, each as soon as those before it are done.
                while printed < wanted.count, let isPlaced = done[printed] {
                    let shown = directory.path(wanted[printed].name)
                    if isPlaced {
                        downloaded += 1
                        try placed(shown)
                    } else {
                        kept.append(shown)
                    }
                    printed += 1
                }
                start()
            }
        }
        progress.clear()
        return Downloaded(
            downloaded: downloaded, skipped: skipped, kept: kept, bytes: progress.total, elapsed: progress.elapsed)
    }

    /// An address tracker fetches: https, or plain http to this machine only (a test's or the demo's host).
    package static func isSafeDownload(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return true
        // The endpoint's rule: plain http only to this machine.
        case "http": return ConfigurationLoader.isLoopback(url.host ?? "")
        default: return false
        }
    }
}

/// The attachments' addresses, read again at most once a command when one has expired (they are signed for about
/// two hours from the read that gave them).
package actor FreshAddresses {
    private let client: ProjectAPIClient
    private let cell: AttachmentCell
    private var reading: Task<[String: String], Error>?

    package init(client: ProjectAPIClient, cell: AttachmentCell) {
        self.client = client
        self.cell = cell
    }

    /// The fresh addresses by attachment id; the first caller reads the record, the others wait for that read.
    package func refreshed() async throws -> [String: String] {
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
package struct DownloadWork: Sendable {
    package let directory: DownloadDirectory
    package let client: ProjectAPIClient
    package let addresses: FreshAddresses
    package let writing: Locked<Set<String>>
    package let progress: DownloadProgress
    package let force: Bool

    /// Whether the file was put in place (false: a different file appeared under its name meanwhile).
    package func run(_ plan: DownloadPlan, holder: FileHolder) async throws -> Bool {
        let file = plan.attachment
        let temporary = DownloadDirectory.temporaryName(for: file.id)
        var address = file.url
        var refreshedHere = false
        var attempt = 0
        while true {
            attempt += 1
            guard let text = address, let url = URL(string: text), Session.isSafeDownload(url) else {
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
