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
import TrackerModel

/// What `tracker changes` saw of the table last time: each project's name and the values it compares, as text. Not
/// a copy the reads are answered from (`BaseCopy`, in memory): a file kept between runs, only to compare with.
package enum TableSnapshot {
    /// One project as it was: tracker's fields by word (`due`, `lead`, …) and the base's own fields by name.
    package struct Entry: Equatable {
        package var id: String
        package var name: String
        package var words: [String: String]
        package var fields: [String: String]
    }

    package static let words = ["due", "kickoff", "complete", "category", "lead", "team", "client", "notes"]
    /// Fields whose value changes by itself or with any edit: comparing them would report noise.
    package static let ignoredTypes: Set<String> = [
        "lastModifiedTime", "lastModifiedBy", "createdTime", "createdBy", "autoNumber", "button",
    ]

    /// `project` as the snapshot keeps it; `formatter` shows the base's own fields as `show` does.
    package static func entry(_ project: Project, formatter: FieldFormatter) -> Entry {
        Entry(
            id: project.id, name: project.name ?? "",
            words: Dictionary(uniqueKeysWithValues: wordValues(project, formatter: formatter)),
            fields: Dictionary(uniqueKeysWithValues: fieldValues(project, formatter: formatter)))
    }

    /// The words a project has a value for, in the order of their names (as a line writes them).
    private static func wordValues(_ project: Project, formatter: FieldFormatter) -> [(String, String)] {
        var values: [(String, String)] = []
        func add(_ word: String, _ value: String?) { if let value, !value.isEmpty { values.append((word, value)) } }
        add("category", project.category)
        add("client", project.clients.map { formatter.recordNames[$0] ?? $0 }.joined(separator: ", "))
        add("complete", project.isComplete ? "yes" : nil)
        add("due", project.due?.description)
        add("kickoff", project.kickoff?.description)
        add("lead", project.lead?.displayName)
        add("notes", project.notes)
        add("team", project.team.map(\.displayName).joined(separator: ", "))
        return values
    }

    /// The base's own fields a project has a value for, as `show` writes them, in the order of their names.
    private static func fieldValues(_ project: Project, formatter: FieldFormatter) -> [(String, String)] {
        var values: [(String, String)] = []
        for field in project.otherFields {
            if let type = formatter.table?.field(named: field.name)?.type, ignoredTypes.contains(type) { continue }
            if let text = formatter.text(field.value, field: field.name), !text.isEmpty {
                values.append((field.name, text))
            }
        }
        return values.sorted { $0.0 < $1.0 }
    }

    /// Writes `project`'s line as `entry(project, formatter:).write(to:)` would, without building the entry: a
    /// listing of 50,000 unchanged projects then allocates no dictionaries.
    package static func writeLine(_ project: Project, formatter: FieldFormatter, to writer: inout JSONWriter) {
        func object(_ values: [(String, String)]) {
            writer.raw("{")
            for (index, (key, value)) in values.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.key(key)
                writer.string(value)
            }
            writer.raw("}")
        }
        writer.raw(#"{"id":"#)
        writer.string(project.id)
        writer.raw(#","name":"#)
        writer.string(project.name ?? "")
        // The words in the order of their names, as `wordValues` lists them, written without building the list.
        writer.raw(#","words":{"#)
        var first = true
        func word(_ key: StaticString, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            if !first { writer.raw(",") }
            first = false
            writer.raw(key)
            writer.string(value)
        }
        word(#""category":"#, project.category)
        if !project.clients.isEmpty {
            word(#""client":"#, project.clients.map { formatter.recordNames[$0] ?? $0 }.joined(separator: ", "))
        }
        if project.isComplete { word(#""complete":"#, "yes") }
        word(#""due":"#, project.due?.description)
        word(#""kickoff":"#, project.kickoff?.description)
        word(#""lead":"#, project.lead?.displayName)
        word(#""notes":"#, project.notes)
        if !project.team.isEmpty { word(#""team":"#, project.team.map(\.displayName).joined(separator: ", ")) }
        writer.raw("}")
        writer.raw(#","fields":"#)
        object(project.otherFields.isEmpty ? [] : fieldValues(project, formatter: formatter))
        writer.raw("}")
    }

    // MARK: - The file

    /// The file: a header line `{"tracker":"changes","version":2,"base":…,"table":…,"selection":…}`, then one line a
    /// project, written the same way for the same values, so an unchanged project is found by comparing lines and
    /// only a changed one is ever parsed (50,000 projects are read without building their values).
    ///
    /// `news` says from where the next run reads what changed: the server's time it read from (less the margin), and
    /// the base's webhook and its cursor when there is one. A file without it is read whole next time.
    package static func header(baseID: String, table: String, selection: String, news: News? = nil) -> String {
        var members: [(String, JSONValue)] = [
            ("tracker", .string("changes")), ("version", .number(2)), ("base", .string(baseID)),
            ("table", .string(table)), ("selection", .string(selection)),
        ]
        if let news {
            members.append(("since", .string(news.since)))
            if let hook = news.hook { members.append(("hook", .string(hook))) }
            if let cursor = news.cursor { members.append(("cursor", .number(Double(cursor)))) }
        }
        return JSONValue.object(members).serialized()
    }

    /// Where the news since a snapshot starts.
    package struct News: Equatable {
        /// The server's time (ISO 8601) changes are listed from.
        package var since: String
        /// The base's webhook and the cursor of its next payload; nil without one.
        package var hook: String?
        package var cursor: Int?
        /// Each stored value given.
        package init(since: String, hook: String? = nil, cursor: Int? = nil) {
            self.since = since
            self.hook = hook
            self.cursor = cursor
        }
    }

    /// Why a snapshot file cannot be trusted.
    package enum Problem: Error, Equatable {
        case corrupt(String)
        case otherTable(String)
    }

    /// A snapshot file as read: its project lines, found by id, in the file's order, each parsed only when asked for.
    /// It works on the file's bytes and the ids' hashes: 50,000 projects cost one buffer and two flat arrays.
    package struct Stored {
        // An array, not Data: 50,000 lines are scanned byte by byte, which Data's iterator makes several times slower.
        private let bytes: [UInt8]
        /// Each line's range in `bytes` and its id's hash, by position in the file.
        private var ranges: [Range<Int>] = []
        private var hashes: [UInt64] = []
        /// Open addressing on the ids' hashes, which are already uniform: position + 1, 0 for empty. A Dictionary
        /// hashed each of them again with SipHash, a twentieth of a run on 50,000 projects.
        private var slots: [Int32] = []
        private var shift: UInt64 = 60
        private static let prefix = Array(#"{"id":""#.utf8)

        /// From where the next run reads what changed; nil in a file written before tracker kept it.
        package var news: News?

        /// How many projects the file holds.
        package var count: Int { ranges.count }

        /// The ids, in the file's order.
        package var ids: [String] { (0..<count).compactMap(id(at:)) }

        /// Where the project `id` is in the file, nil when the snapshot did not have it.
        package func position(of id: String) -> Int? {
            guard let position = probe(StableHash.of(id)).position else { return nil }
            return holds(id, in: ranges[position]) ? position : nil
        }

        /// The slot of `hash`: where the line with that hash sits (and its position), else the empty slot it would
        /// take.
        private func probe(_ hash: UInt64) -> (slot: Int, position: Int?) {
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> shift)
            while slots[slot] != 0 {
                let position = Int(slots[slot]) - 1
                if hashes[position] == hash { return (slot, position) }
                slot = (slot + 1) & mask
            }
            return (slot, nil)
        }

        /// The line at `position`, without its line break.
        package func line(at position: Int) -> ArraySlice<UInt8> { bytes[ranges[position]] }

        /// The id of the project at `position`.
        package func id(at position: Int) -> String? {
            let range = ranges[position]
            let start = range.lowerBound + Self.prefix.count
            guard let end = bytes[start..<range.upperBound].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }

        /// The project `id` as it was, nil when the snapshot did not have it.
        package func entry(_ id: String) throws(Problem) -> Entry? {
            guard let position = position(of: id) else { return nil }
            guard let entry = Entry(line: Substring(decoding: line(at: position), as: UTF8.self)) else {
                throw .corrupt("the line of \(id) is malformed")
            }
            return entry
        }

        /// Whether the line at `range` is the project `id`'s: its id's bytes compared in place, no string made.
        private func holds(_ id: String, in range: Range<Int>) -> Bool {
            var id = id
            return id.withUTF8 { id in
                let start = range.lowerBound + Self.prefix.count
                let end = start + id.count
                guard end < range.upperBound, bytes[end] == UInt8(ascii: "\"") else { return false }
                return bytes.withUnsafeBytes { memcmp($0.baseAddress! + start, id.baseAddress!, id.count) == 0 }
            }
        }

        /// Reads the lines after the header (`body` is where they start), each checked to begin with a project's
        /// id, indexed by that id's hash.
        fileprivate init(bytes: [UInt8], body: Int) throws(Problem) {
            self.bytes = bytes
            let prefix = Self.prefix
            // The closure returns the line number it could not read: `withUnsafeBytes` would forget a typed error.
            let unreadable: Int? = bytes.withUnsafeBytes { file in
                let base = file.baseAddress!
                var start = body
                while start < file.count {
                    // Every line ends with a line break: the reader checked the file's last byte.
                    let end = UnsafeRawPointer(memchr(base + start, 10, file.count - start)!) - base
                    let idStart = start + prefix.count
                    guard end > idStart, memcmp(base + start, prefix, prefix.count) == 0,
                        let quote = memchr(base + idStart, Int32(UInt8(ascii: "\"")), end - idStart)
                    else { return ranges.count + 2 }
                    let idEnd = UnsafeRawPointer(quote) - base
                    ranges.append(start..<end)
                    hashes.append(StableHash.of(utf8: UnsafeRawBufferPointer(rebasing: file[idStart..<idEnd])))
                    start = end + 1
                }
                return nil
            }
            if let unreadable { throw .corrupt("line \(unreadable) is not a project") }
            var bits: UInt64 = 4
            while 1 << bits < ranges.count * 2 { bits += 1 }
            shift = 64 - bits
            slots = [Int32](repeating: 0, count: 1 << Int(bits))
            for (position, hash) in hashes.enumerated() {
                let (slot, taken) = probe(hash)
                guard taken == nil else { throw .corrupt("\(id(at: position) ?? "a project") is there twice") }
                slots[slot] = Int32(position + 1)
            }
        }
    }

    /// Reads a snapshot file written for `baseID`, `table` and `selection`; anything else is refused, never trusted.
    package static func read(_ bytes: [UInt8], baseID: String, table: String, selection: String) throws(Problem)
        -> Stored
    {
        guard bytes.last == 10 else { throw .corrupt("it does not end with a line break (cut short?)") }
        let headerEnd = bytes.firstIndex(of: 10)!
        guard let root = try? JSONParser.parse(Data(bytes[..<headerEnd])) else {
            throw .corrupt("its first line is not JSON")
        }
        guard root["tracker"]?.stringValue == "changes", root["version"]?.numberValue == 2 else {
            throw .corrupt("not a snapshot of tracker changes, version 2")
        }
        guard let base = root["base"]?.stringValue, let name = root["table"]?.stringValue,
            let taken = root["selection"]?.stringValue
        else { throw .corrupt("its base, table or selection is missing") }
        guard base == baseID, name == table, taken == selection else {
            throw .otherTable("it is of base \(base), table \"\(name)\"\(taken.isEmpty ? "" : " (\(taken))")")
        }
        var stored = try Stored(bytes: bytes, body: headerEnd + 1)
        // Where the news starts is trusted only when it reads as possible: a time, and a cursor that is a whole number
        // from 1 (`1e300` is no cursor). Anything else is no mark at all, and the next run reads the table whole.
        if let since = root["since"]?.stringValue, ISOInstant.date(since) != nil {
            let cursor = root["cursor"].map { $0.intValue.flatMap { $0 >= 1 ? $0 : nil } }
            if cursor != .some(nil) {
                stored.news = News(since: since, hook: root["hook"]?.stringValue, cursor: cursor ?? nil)
            }
        }
        return stored
    }
}

extension TableSnapshot.Entry {
    /// Appends the entry's line, `{"id":…,"name":…,"words":{…},"fields":{…}}` with keys in order, so equal entries
    /// give equal lines, (without the line break) to `writer`.
    package func write(to writer: inout JSONWriter) {
        func object(_ values: [String: String]) {
            writer.raw("{")
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { writer.raw(",") }
                writer.key(key)
                writer.string(values[key]!)
            }
            writer.raw("}")
        }
        writer.raw(#"{"id":"#)
        writer.string(id)
        writer.raw(#","name":"#)
        writer.string(name)
        writer.raw(#","words":"#)
        object(words)
        writer.raw(#","fields":"#)
        object(fields)
        writer.raw("}")
    }

    /// An entry from its line; nil when the line is not one.
    package init?(line: Substring) {
        guard let value = try? JSONParser.parse(String(line)), let id = value["id"]?.stringValue,
            let name = value["name"]?.stringValue, let words = Self.strings(value["words"]),
            let fields = Self.strings(value["fields"])
        else { return nil }
        self.init(id: id, name: name, words: words, fields: fields)
    }

    private static func strings(_ value: JSONValue?) -> [String: String]? {
        guard let members = value?.objectMembers else { return nil }
        var result: [String: String] = [:]
        for (key, value) in members {
            guard let text = value.stringValue else { return nil }
            result[key] = text
        }
        return result
    }
}
