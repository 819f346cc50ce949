import TrackerAPI
import TrackerModel
import TrackerNetwork

/// Why a script refused a change.
enum TeamRefusal: Error, Equatable {
    /// The lease is another's (or gone): this process no longer polls.
    case lease
    /// The copy in Redis is missing, of another generation or short of records: it is read whole again.
    case broken
    /// The copy in Redis is older than the last version the poller saw (restarted from an older dump, or a replica
    /// that was behind took over): what it lost cannot be told, so it is made again.
    case behind
}

extension TeamCopyStore {
    /// A poller's refresh applied at once, fenced by its lease, on a copy of `generation` at `version` or later; the
    /// version it made.
    func refresh(
        token: String, stamp: Double, generation: String, version: Int, tables: [BaseCopy.Table],
        header: [(String, String)], changes: TeamChanges
    ) throws -> Int {
        let keys = [self.keys.lease, self.keys.head, self.keys.gone, self.keys.news] + tables.map(self.keys.records)
        let arguments =
            [
                token, format3(stamp), generation, "\(version)", tables.map(\.word).joined(separator: " "),
                "\(header.count)",
            ]
            + header.flatMap { [$0.0, $0.1] } + changes.arguments(tables)
        let answer = try scripts.evaluate([(TeamCopyScripts.refresh, keys, arguments)])[0]
        return try Self.accepted(answer)
    }

    /// A write's answer put in at once (newer wins); false when the copy is missing or unsound (nothing written).
    @discardableResult
    func heard(stamp: Double, table: BaseCopy.Table, changes: TeamChanges) throws(RedisFailure) -> Bool {
        let keys = [self.keys.head, self.keys.gone, self.keys.news, self.keys.records(table)]
        let arguments = [format3(stamp), table.word] + changes.arguments([table])
        return try connection.evaluate([(TeamCopyScripts.heard, keys, arguments)])[0] == .integer(1)
    }

    /// A whole read made the copy: staged under keys of this generation in batches, then swapped in by one script that
    /// the lease fences and that checks every staged count.
    func rebuild(
        token: String, generation: String, stamp: Double, tables: [(BaseCopy.Table, [(id: String, json: String)])],
        header: [(String, String)]
    ) throws -> Int {
        for (table, records) in tables {
            let stage = keys.stage(table, generation: generation)
            var order = 0
            for batch in records.chunked(into: 500) {
                var words = ["HSET", stage]
                for record in batch {
                    order += 1
                    words += [record.id, format3(stamp) + " \(order) " + record.json]
                }
                // A stage outlives the read that fills it by minutes, not hours: one a crashed poller left soon goes.
                let answers = try scripts.call([words, ["PEXPIRE", stage, "300000"]])
                if case .error(let text) = answers[0] { throw RedisConnection.classify(text) }
            }
        }
        // A write answered while the read ran may be older here than in Airtable: the next refresh's listing of
        // changes (its margin reaches back before the read) brings it again.
        var keys = [self.keys.lease, self.keys.head, self.keys.gone, self.keys.news]
        for (table, _) in tables { keys += [self.keys.records(table), self.keys.stage(table, generation: generation)] }
        let arguments =
            [
                token, generation, tables.map(\.0.word).joined(separator: " "),
                tables.map { "\($0.1.count)" }.joined(separator: " "), "\(header.count)",
            ] + header.flatMap { [$0.0, $0.1] }
        let answer = try scripts.evaluate([(TeamCopyScripts.rebuild, keys, arguments)])[0]
        return try Self.accepted(answer)
    }

    /// Keeps the first page of a whole read for two minutes (or until the copy is made), while `token` holds the
    /// lease: one stored record a line.
    func publishFirstPage(token: String, records: [String]) {
        let text = records.joined(separator: "\n")
        _ = try? connection.evaluate([
            (TeamCopyScripts.firstPage, [keys.lease, keys.first], [token, text, "120000"])
        ])
    }

    /// The first page a poller kept, decoded; nil when none is, or it holds a line that is not a record.
    func firstPage<Record: StoredRecord>(as: Record.Type) -> [Record]? {
        guard let text = (try? connection.command(["GET", keys.first]))?.text else { return nil }
        var records: [Record] = []
        // Split as bytes: splitting by Characters runs the grapheme rules over every byte of the page.
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            guard let record = Self.record(json: Substring(line), as: Record.self) else { return nil }
            records.append(record)
        }
        return records
    }

    private static func accepted(_ answer: RESPValue) throws -> Int {
        guard case .array(let parts?) = answer, parts.count == 2 else {
            throw RedisFailure.replied("a script of the team's copy answered in an unexpected shape")
        }
        if case .integer(let version) = parts[1], parts[0] == .integer(1) { return version }
        switch parts[1].text {
        case "lease": throw TeamRefusal.lease
        case "behind": throw TeamRefusal.behind
        default: throw TeamRefusal.broken
        }
    }
}

/// A stamp as the scripts write it: seconds, to the millisecond.
func format3(_ stamp: Double) -> String {
    let millis = Int((stamp * 1000).rounded())
    let fraction = String(millis % 1000)
    return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
}
