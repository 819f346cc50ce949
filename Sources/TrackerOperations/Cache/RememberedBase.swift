#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// What tracker remembers about one base, for one token, between commands: the schema (for an hour at most) and the
/// names it has resolved since reading it. It is forgotten with the schema, so a name is never older than an hour.
package struct RememberedBase: Equatable, Sendable {
    /// When the schema was read, in seconds since 1970.
    package var readAt: Double
    /// The schema API's answer as it came; nil when the token may not read the schema.
    package var schema: JSONValue?
    /// Collaborators found by name (lower-cased), as the cell that names them.
    package var people: [String: JSONValue] = [:]
    /// Records of other tables by table id, then record id: the text of their primary field.
    package var records: [String: [String: String]] = [:]
    /// The token's user id (`GET /v0/meta/whoami`), once asked for.
    package var user: String?

    /// A schema is read at most this often (docs/contract.md "Your base as it is").
    package static let lifetime = 3600.0

    package init(readAt: Double, schema: JSONValue?) {
        self.readAt = readAt
        self.schema = schema
    }

    /// Whether it may still be used at `now` (seconds since 1970); a clock set back makes it stale, not eternal.
    package func isFresh(at now: Double) -> Bool { now >= readAt && now - readAt < Self.lifetime }

    /// The cache file's name: one per endpoint, base and token, never holding the token itself.
    package static func fileName(endpoint: URL, baseID: String, token: String) -> String {
        let key = StableHash.of([endpoint.absoluteString, baseID, token].joined(separator: "\u{0}"))
        return "base-\(baseID.filter { $0.isLetter || $0.isNumber })-\(String(key, radix: 16)).json"
    }

    // MARK: - On disk

    private static let version = 1.0

    /// The file's contents.
    package var data: Data {
        let people = JSONValue.object(self.people.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let records = JSONValue.object(
            self.records.sorted { $0.key < $1.key }.map { table, names in
                (table, .object(names.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
            })
        let body = JSONValue.object([
            ("version", .number(Self.version)), ("readAt", .number(readAt)), ("schema", schema ?? .null),
            ("people", people), ("records", records), ("user", user.map(JSONValue.string) ?? .null),
        ])
        return Data(body.serialized().utf8)
    }

    /// What a cache file holds, or nil for anything but a file this version wrote.
    package init?(data: Data) {
        guard let body = try? JSONParser.parse(data), body["version"]?.numberValue == Self.version,
            let readAt = body["readAt"]?.numberValue
        else { return nil }
        self.readAt = readAt
        let schema = body["schema"]
        self.schema = schema == .null ? nil : schema
        for (name, cell) in body["people"]?.objectMembers ?? [] { people[name] = cell }
        user = body["user"]?.stringValue
        for (table, names) in body["records"]?.objectMembers ?? [] {
            var found: [String: String] = [:]
            for (id, name) in names.objectMembers ?? [] { found[id] = name.stringValue }
            records[table] = found
        }
    }
}
