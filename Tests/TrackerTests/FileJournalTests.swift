import Foundation
import Testing
import TrackerModel
import TrackerSystem

@testable import TrackerOperations

/// The journal on this machine: each write's entry kept before it is sent, its later state replacing it, 30 days and
/// a bound, 0600, and a journal that cannot be kept stopping the write.
@Suite struct FileJournalTests {
    let now = 1_800_000_000.0

    func directory() -> String {
        let path = NSTemporaryDirectory() + "journal-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func update(at: Double, command: String = "update") -> JournalEntry {
        JournalEntry(
            at: at, user: "usrALICE000000001", face: "cli", command: command, table: "Design projects",
            changes: [
                .init(
                    kind: .update, id: "rec00000000000001", before: [("Status", .string("Open"))],
                    after: [("Status", .string("Done"))])
            ])
    }

    @Test func anEntryKeptIsReadBackAsItWasAndItsFileIsPrivate() throws {
        let journal = FileJournal(directory: directory(), now: { now })
        var entry = update(at: now - 10)
        entry.changes.append(
            .init(
                kind: .delete, id: "rec00000000000002", before: [("Name", .string("Old")), ("Due", .null)],
                links: [("Tasks", ["recTASK000000001", "recTASK000000002"])]))
        try journal.keep(entry)
        #expect(try journal.entries(limit: 10, since: nil) == [entry])
        #expect(try journal.entry(entry.id) == entry)
        let mode =
            try FileManager.default.attributesOfItem(atPath: journal.directory + "/journal.jsonl")[
                .posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// Broken by appending a state as a second entry: the opened one is listed beside the completed one.
    @Test func aLaterStateOfAnEntryReplacesIt() throws {
        let journal = FileJournal(directory: directory(), now: { now })
        var entry = update(at: now - 5)
        try journal.keep(entry)
        entry.state = .completed
        try journal.keep(entry)
        #expect(try journal.entries(limit: 10, since: nil).map(\.state) == [.completed])
    }

    @Test func entriesAreNewestFirstWithinThirtyDaysSinceAndTheLimit() throws {
        let journal = FileJournal(directory: directory(), now: { now })
        let old = update(at: now - 31 * 86_400, command: "old")
        let week = update(at: now - 7 * 86_400, command: "week")
        let day = update(at: now - 86_400, command: "day")
        let hour = update(at: now - 3600, command: "hour")
        for entry in [week, old, hour, day] { try journal.keep(entry) }
        #expect(try journal.entries(limit: 10, since: nil).map(\.command) == ["hour", "day", "week"])
        #expect(try journal.entries(limit: 10, since: now - 2 * 86_400).map(\.command) == ["hour", "day"])
        #expect(try journal.entries(limit: 1, since: nil).map(\.command) == ["hour"])
        #expect(try journal.entry(old.id) == nil, "older than 30 days: dropped")
    }

    /// Broken by a compaction that keeps the oldest, or none: the file grows without bound.
    @Test func theNewestEntriesAreKeptWithinTheBound() throws {
        let journal = FileJournal(directory: directory(), now: { now }, bound: 20, compactFloor: 2048)
        let entries = (0..<120).map { update(at: now - 1000 + Double($0), command: "n\($0)") }
        for entry in entries { try journal.keep(entry) }
        let listed = try journal.entries(limit: 100, since: nil)
        #expect(listed.map(\.command) == entries.suffix(20).reversed().map(\.command))
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: journal.directory + "/journal.jsonl")[.size] as? Int)
        #expect(size < 120 * 300, "compacted")
    }

    @Test func aLineThatIsNotAnEntryIsPassedOver() throws {
        let journal = FileJournal(directory: directory(), now: { now })
        let entry = update(at: now - 1)
        try journal.keep(entry)
        let handle = try #require(FileHandle(forWritingAtPath: journal.directory + "/journal.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data("{\"id\":\"wrtcut".utf8))
        try handle.close()
        #expect(try journal.entries(limit: 10, since: nil) == [entry])
        // The next entry stands on a line of its own (broken by appending to the cut line: it is lost).
        let next = update(at: now)
        try journal.keep(next)
        #expect(try journal.entries(limit: 10, since: nil) == [next, entry])
    }

    /// A journal that cannot keep the entry says so: the write is then not sent (exit 75).
    @Test func aJournalThatCannotBeKeptStopsTheWrite() throws {
        let file = directory() + "/not-a-directory"
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        let journal = FileJournal(directory: file + "/journal", now: { now })
        #expect(throws: AppError.self) { try journal.keep(update(at: now)) }
        do {
            try journal.keep(update(at: now))
        } catch {
            #expect(error.exitCode == .temporaryFailure)
            #expect(error.message.hasPrefix("the journal could not keep this write, so nothing was written"))
        }
    }
}
