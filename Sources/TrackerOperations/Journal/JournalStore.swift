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
import TrackerModel
import TrackerSystem

/// Where the journal is kept: the team's Redis when there is one (every machine sees every entry), else this
/// machine's state directory. Entries live 30 days and the newest 10,000 are kept.
package protocol JournalStore: Sendable {
    /// Keeps `entry`, a new one or a later state of one kept; throws when it cannot, and the write is then not sent.
    func keep(_ entry: JournalEntry) throws(AppError)
    /// The entries newest first, at most `limit`, opened at or after `since` (seconds since 1970).
    func entries(limit: Int, since: Double?) throws(AppError) -> [JournalEntry]
    /// The entry with this id; nil when there is none (or it was dropped).
    func entry(_ id: String) throws(AppError) -> JournalEntry?
    /// Where it is kept, in words.
    var keeper: String { get }
}

/// How long entries live and how many are kept.
package enum JournalBounds {
    package static let days = 30.0
    package static let entries = 10_000
    package static var seconds: Double { days * 86_400 }
}

/// The journal in this machine's state directory: `journal.jsonl`, 0600, one entry a line. A later state of an entry
/// is appended as a line of its own (the last one read wins), so keeping an entry costs one short write, never a
/// rewrite; the file is compacted (each entry once, none older than 30 days, the newest 10,000) once it has grown to
/// twice its size after the last compaction. Changes are made under an exclusive lock on `journal.lock`.
package struct FileJournal: JournalStore {
    package let directory: String
    /// The file's name without `.jsonl`: one journal a base.
    let name: String
    let now: @Sendable () -> Double
    /// How many entries are kept, and the least size the file is compacted at (tests make both small).
    let bound: Int
    let compactFloor: Int

    package init(
        directory: String, name: String = "journal", now: @escaping @Sendable () -> Double,
        bound: Int = JournalBounds.entries, compactFloor: Int = 256 * 1024
    ) {
        (self.directory, self.name, self.now, self.bound, self.compactFloor) = (
            directory, name, now, bound, compactFloor
        )
    }

    var path: String { directory + "/" + name + ".jsonl" }
    package var keeper: String { path }

    package func keep(_ entry: JournalEntry) throws(AppError) {
        let line = Array((entry.json.serialized() + "\n").utf8)
        try locked { () throws(AppError) in
            let descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw Self.failure("open", path) }
            defer { close(descriptor) }
            fchmod(descriptor, 0o600)
            // A line left cut short (a machine that stopped mid-write) is ended first, so this one stands alone.
            var line = line
            var last: UInt8 = 0
            let end = lseek(descriptor, 0, SEEK_END)
            if end > 0, pread(descriptor, &last, 1, end - 1) == 1, last != UInt8(ascii: "\n") {
                line.insert(UInt8(ascii: "\n"), at: 0)
            }
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            // Kept before the write is sent: on the disk, not only in the system's cache.
            guard written == line.count, fsync(descriptor) == 0 else { throw Self.failure("write", path) }
            var status = stat()
            if fstat(descriptor, &status) == 0, Int(status.st_size) > 2 * max(compactedSize(), compactFloor) {
                try compact()
            }
        }
    }

    package func entries(limit: Int, since: Double?) throws(AppError) -> [JournalEntry] {
        let oldest = max(since ?? 0, now() - JournalBounds.seconds)
        var found: [JournalEntry] = []
        for line in try newestLines() where line.at >= oldest {
            guard let entry = Self.entry(line.line) else { continue }
            found.append(entry)
            if found.count == limit { break }
        }
        return found
    }

    /// Each entry's last line, newest first, at most the bound. Each line's id and time are read off its start
    /// (tracker writes them first) and only the entries asked for are parsed whole: `history` over 10,000 entries
    /// parses twenty, an undo by id one.
    private func newestLines() throws(AppError) -> [(id: Substring, at: Double, line: Data.SubSequence)] {
        guard let data = try contents() else { return [] }
        var latest: [Substring: (at: Double, line: Data.SubSequence)] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            if let (id, at) = Self.idAndTime(line) {
                latest[id] = (at, line)
            } else if let entry = Self.entry(line) {
                latest[Substring(entry.id)] = (entry.at, line)
            }
        }
        return latest.sorted { $0.value.at != $1.value.at ? $0.value.at > $1.value.at : $0.key > $1.key }
            .prefix(bound).map { ($0.key, $0.value.at, $0.value.line) }
    }

    private static func entry(_ line: Data.SubSequence) -> JournalEntry? {
        (try? JSONParser.parse(Data(line))).flatMap(JournalEntry.init(json:))
    }

    /// The id and time a line starts with (`{"id":"wrt…","at":…,`); nil for any other shape.
    static func idAndTime(_ line: Data.SubSequence) -> (Substring, Double)? {
        let bytes = Array(line.prefix(64))
        let head = Array(#"{"id":""#.utf8)
        let middle = Array(#"","at":"#.utf8)
        guard bytes.count > head.count + 17 + middle.count, Array(bytes[0..<head.count]) == head,
            Array(bytes[(head.count + 17)..<(head.count + 17 + middle.count)]) == middle
        else { return nil }
        let id = String(decoding: bytes[head.count..<(head.count + 17)], as: UTF8.self)
        let start = head.count + 17 + middle.count
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")),
            let at = Double(String(decoding: bytes[start..<end], as: UTF8.self)), JournalEntry.isKept(id)
        else { return nil }
        return (Substring(id), at)
    }

    package func entry(_ id: String) throws(AppError) -> JournalEntry? {
        let oldest = now() - JournalBounds.seconds
        return try newestLines().first { $0.id == id && $0.at >= oldest }.flatMap { Self.entry($0.line) }
    }

    /// The file's bytes; nil when there is none yet.
    private func contents() throws(AppError) -> Data? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw Self.failure("read", path) }
            return nil
        }
        return data
    }

    /// Each entry once, none older than 30 days, the newest 10,000: written beside the file, then put in its place.
    private func compact() throws(AppError) {
        // Each entry's last line as it was written: nothing is parsed again.
        let kept = try newestLines().filter { $0.at >= now() - JournalBounds.seconds }
        var bytes: [UInt8] = []
        for line in kept.reversed() { bytes += line.line + [UInt8(ascii: "\n")] }
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("compact", temporary) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Self.failure("compact", path)
        }
        try? String(bytes.count).write(toFile: path + ".size", atomically: true, encoding: .utf8)
    }

    private func compactedSize() -> Int {
        (try? String(contentsOfFile: path + ".size", encoding: .utf8)).flatMap { Int($0) } ?? 0
    }

    private func locked<T>(_ body: () throws(AppError) -> T) throws(AppError) -> T {
        // The state directory and those above it, as `mkdir -p` would (a fresh HOME has no ~/.local/state).
        var made = ""
        for part in directory.split(separator: "/") {
            made += "/" + part
            guard mkdir(made, 0o700) == 0 || errno == EEXIST else { throw Self.failure("make", made) }
        }
        let lock = open(directory + "/" + name + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw Self.failure("lock", directory + "/" + name + ".lock") }
        flock(lock, LOCK_EX)
        defer {
            flock(lock, LOCK_UN)
            close(lock)
        }
        return try body()
    }

    static func failure(_ doing: String, _ path: String) -> AppError {
        .journalUnavailable("could not \(doing) \(path) (\(POSIX.describe(errno)))")
    }
}
