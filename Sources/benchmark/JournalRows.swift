import FakeAirtable
import Foundation
import TrackerModel
import TrackerNetwork
import TrackerOperations

/// `--journal`: what the journal costs. Keeping an entry (twice a write: opened, then completed) in the team's Redis
/// and in the state directory, measured in this process; the Airtable requests of a journaled update by name (the
/// same as before the journal: its before-values are the projects the name was found with); `history` over 10,000
/// entries through the built binary; and the undo of a 1,000-row import against a fake at 5 a second, beside the
/// floor of its 100 deletions.
@MainActor func journalRows() throws {
    let entry = JournalEntry(
        at: Date().timeIntervalSince1970, user: "usrBENCHuser00001", face: "cli", command: "update",
        table: "Design projects",
        changes: [
            JournalEntry.Change(
                kind: .update, id: "rec00000000000001",
                before: [("Due date", .string("2026-12-01")), ("Notes", .null)],
                after: [("Due date", .string("2026-12-24")), ("Notes", .string("Proofs at the printer"))])
        ])
    let now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    func perKeep(_ store: any JournalStore, _ count: Int) -> Double {
        let start = Date()
        for index in 0..<count {
            var kept = entry
            kept.id = JournalEntry.newID()
            kept.at = entry.at + Double(index) / 1000
            try? store.keep(kept)
        }
        return Date().timeIntervalSince(start) / Double(count)
    }
    let file = FileJournal(directory: scratch + "/journal-bench", now: now)
    print(String(format: "  keeping an entry in the state directory (fsync'd): %.2f ms", perKeep(file, 500) * 1000))
    if let redis = BenchmarkRedis() {
        defer { redis.stop() }
        let address = try RedisAddress.parse(redis.url).get()
        let store = RedisJournal(
            connection: RedisConnection(address: address), baseID: "appBENCHbase00001", redis: redis.url, now: now)
        _ = perKeep(store, 50)
        let each = perKeep(store, 2000)
        print(
            String(
                format:
                    "  keeping an entry in the team's Redis: %.3f ms; a journaled write keeps two: %.3f ms (goal ≤ 2)",
                each * 1000, each * 2000))
    } else {
        print("  no redis-server installed: the Redis row skipped")
    }

    // A journaled update by name: the requests it sends.
    let (base, environment) = try serve(FakeAirtable.recordedProjects)
    _ = Measure.run(tracker, ["list"], environment: environment)
    let before = base.log.count
    _ = Measure.run(tracker, ["update", "CMCA brand identity", "--due", "+9d"], environment: environment)
    let sent = base.log.dropFirst(before).map { "\($0.method) \($0.path.hasPrefix("/v0/meta/") ? "meta" : "records")" }
    print("  update by name, journaled: \(sent.count) requests (\(sent.joined(separator: ", "))); no read of its own")

    // history over 10,000 entries, from the state directory.
    let home = environment["HOME"]!
    let full = FileJournal(directory: home + "/.local/state/tracker/journal", name: "appFAKEbase000001", now: now)
    _ = perKeep(full, 10_000)
    record("history, 10,000 entries (state directory)", repeatRun(quick ? 3 : 5, ["history"], environment))
    record(
        "history --json --limit 10000, 10,000 entries",
        repeatRun(quick ? 3 : 5, ["history", "--json", "--limit", "10000"], environment))
    base.stop()

    // The undo of a 1,000-row import at 5 a second.
    let (paced, pacedEnvironment) = try serve([], requestsPerSecond: 5, trackerPace: 5)
    defer { paced.stop() }
    let rows = "name,due\n" + (1...1000).map { "Imported \($0),2027-01-15\n" }.joined()
    let csv = scratch + "/import-\(UUID().uuidString).csv"
    try rows.write(toFile: csv, atomically: false, encoding: .utf8)
    let imported = Measure.run(tracker, ["import", csv], environment: pacedEnvironment)
    print(String(format: "  import of 1,000 rows at 5 a second: %.1f s", imported.wall))
    let start = paced.log.count
    let undone = Measure.run(tracker, ["undo", "--yes"], environment: pacedEnvironment)
    let requests = paced.log.count - start
    let floor = 100 / 5.0
    print(
        String(
            format:
                "  undo of that import: %.1f s, %d requests (%d deletions); the floor of its 100 deletions %.0f s: %.2f× (goal ≤ 1.15×)%@",
            undone.wall, requests, paced.log.dropFirst(start).filter { $0.method == "DELETE" }.count, floor,
            undone.wall / floor, paced.records.isEmpty ? "" : "  FAILED: \(paced.records.count) projects left"))
}
