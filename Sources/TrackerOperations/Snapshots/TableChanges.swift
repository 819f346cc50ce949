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

/// One project that changed between two snapshots, and what changed in it.
package struct TableChange: Equatable {
    package enum Kind: String {
        case added, deleted, changed
    }

    /// A value before and after; nil is empty.
    package struct Value: Equatable {
        package var field: String
        package var from: String?
        package var to: String?
        /// Whether `field` is one of tracker's words rather than a field of the base.
        package var isWord: Bool
    }

    package var id: String
    package var name: String
    package var kind: Kind
    /// For `added`, the due date; for `changed`, every value that differs (the name first, if it does).
    package var values: [Value] = []

    /// `entry` added (no `previous`) or changed; nil when nothing differs.
    package static func change(from previous: TableSnapshot.Entry?, to entry: TableSnapshot.Entry) -> TableChange? {
        guard let previous else {
            return TableChange(
                id: entry.id, name: entry.name, kind: .added,
                values: entry.words["due"].map { [Value(field: "due", from: nil, to: $0, isWord: true)] } ?? [])
        }
        var values: [Value] = []
        if previous.name != entry.name {
            values.append(Value(field: "name", from: previous.name, to: entry.name, isWord: true))
        }
        for word in TableSnapshot.words where previous.words[word] != entry.words[word] {
            values.append(Value(field: word, from: previous.words[word], to: entry.words[word], isWord: true))
        }
        for field in Set(previous.fields.keys).union(entry.fields.keys).sorted()
        where previous.fields[field] != entry.fields[field] {
            values.append(Value(field: field, from: previous.fields[field], to: entry.fields[field], isWord: false))
        }
        return values.isEmpty ? nil : TableChange(id: entry.id, name: entry.name, kind: .changed, values: values)
    }

    /// `entry` gone from the table.
    package static func deleted(_ entry: TableSnapshot.Entry) -> TableChange {
        TableChange(id: entry.id, name: entry.name, kind: .deleted)
    }

    /// The change in words, one line each: `added NAME (due DATE)`, `NAME: due OLD → NEW`, `NAME: done`, …; text from
    /// the base is made safe for a terminal and kept to one line.
    package var lines: [String] {
        let name = TextCells.folded(self.name.isEmpty ? id : self.name)
        switch kind {
        case .added: return ["added \(name)" + (values.first?.to.map { " (due \($0))" } ?? "")]
        case .deleted: return ["deleted \(name)"]
        case .changed:
            return values.map { value in
                func shown(_ text: String?) -> String { text.map(TextCells.folded) ?? "none" }
                switch (value.field, value.isWord) {
                case ("name", true): return "\(name): renamed from \(shown(value.from))"
                case ("complete", true): return "\(name): " + (value.to == nil ? "reopened" : "done")
                case ("notes", true): return "\(name): notes changed"
                case (let word, true): return "\(name): \(word) \(shown(value.from)) → \(shown(value.to))"
                case (let field, false):
                    return "\(name): \(TextCells.folded(field)): \(shown(value.from)) → \(shown(value.to))"
                }
            }
        }
    }

    /// `{"id","name","change","fields":{"due":{"from":…,"to":…}}}`; `complete` as booleans, empty values as null.
    package var json: JSONValue {
        let fields = kind == .changed ? values : []
        return .object([
            ("id", .string(id)), ("name", .string(name)), ("change", .string(kind.rawValue)),
            (
                "fields",
                .object(
                    fields.map { value in
                        let isComplete = value.isWord && value.field == "complete"
                        func json(_ text: String?) -> JSONValue { isComplete ? .bool(text != nil) : .string(or: text) }
                        return (value.field, .object([("from", json(value.from)), ("to", json(value.to))]))
                    })
            ),
        ])
    }
}

/// The table compared with the snapshot page by page as it arrives, the new snapshot written as it goes: only the lines
/// of changed projects are ever parsed. A value type changed through one `mutating` call a page, so the bytes it
/// writes are not checked for exclusive access one by one, as variables captured by a closure would be.
package struct TableComparison {
    package let previous: TableSnapshot.Stored?
    package let formatter: FieldFormatter
    /// The new snapshot's bytes, header first.
    package private(set) var file: JSONWriter
    package var changes: [TableChange] = []
    /// How many projects the listing held.
    package private(set) var count = 0
    /// Which of the snapshot's projects the listing held, by position in the snapshot.
    private var seen: [Bool]

    package init(previous: TableSnapshot.Stored?, formatter: FieldFormatter, capacity: Int, header: String) {
        self.previous = previous
        self.formatter = formatter
        seen = [Bool](repeating: false, count: previous?.count ?? 0)
        // Sized from the last file, so growing it never holds two copies of a large table at once.
        file = JSONWriter(capacity: capacity)
        file.raw(json: header)
        file.raw("\n")
    }

    /// The ids of the snapshot's projects the listing did not hold, in the snapshot's order.
    package var missing: [String] {
        guard let previous else { return [] }
        return seen.indices.filter { !seen[$0] }.compactMap(previous.id(at:))
    }

    package mutating func add(_ page: [Project]) throws {
        count += page.count
        for project in page {
            let start = file.bytes.count
            TableSnapshot.writeLine(project, formatter: formatter, to: &file)
            guard let previous else {
                file.raw("\n")
                continue
            }
            // Compared before the next write (a slice kept across it would copy the whole file every project), as
            // memory: 50,000 lines compared byte by byte through generic slices were a tenth of the run.
            let position = previous.position(of: project.id)
            let unchanged = position.map { Self.sameBytes(previous.line(at: $0), file.bytes[start...]) } ?? false
            file.raw("\n")
            if let position { seen[position] = true }
            // Only a changed project is built into an entry to compare field by field.
            if !unchanged { try compare(TableSnapshot.entry(project, formatter: formatter)) }
        }
    }

    /// The snapshot brought up to date with only what changed since it: `changed` the projects modified since that
    /// the selection still picks, `left` those it no longer picks (changed, and dropped from the snapshot), `deleted`
    /// the ids gone from the table. Every other line is kept as it was, byte for byte, in the snapshot's order; new
    /// projects go last.
    package mutating func patch(changed: [Project], left: [Project], deleted: Set<String>) throws {
        guard let previous else { return try add(changed) }
        let updates = Dictionary(changed.map { ($0.id, $0) }) { _, last in last }
        let leaving = Set(left.map(\.id))
        for entry in left where previous.position(of: entry.id) != nil {
            try compare(TableSnapshot.entry(entry, formatter: formatter))
        }
        for position in 0..<previous.count {
            guard let id = previous.id(at: position) else { continue }
            seen[position] = true
            if leaving.contains(id) { continue }
            if deleted.contains(id) {
                if let entry = try previous.entry(id) { changes.append(TableChange.deleted(entry)) }
                continue
            }
            count += 1
            if let project = updates[id] {
                let start = file.bytes.count
                TableSnapshot.writeLine(project, formatter: formatter, to: &file)
                let unchanged = Self.sameBytes(previous.line(at: position), file.bytes[start...])
                file.raw("\n")
                if !unchanged { try compare(TableSnapshot.entry(project, formatter: formatter)) }
            } else {
                file.raw(bytes: previous.line(at: position))
                file.raw("\n")
            }
        }
        let new = changed.filter { previous.position(of: $0.id) == nil && !deleted.contains($0.id) }
        for project in new {
            count += 1
            TableSnapshot.writeLine(project, formatter: formatter, to: &file)
            file.raw("\n")
            try compare(TableSnapshot.entry(project, formatter: formatter))
        }
    }

    private static func sameBytes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        a.count == b.count
            && a.withUnsafeBytes { x in
                b.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
            }
    }

    /// Adds what changed in `entry` since the snapshot, when there is one.
    package mutating func compare(_ entry: TableSnapshot.Entry) throws {
        guard let previous else { return }
        if let change = TableChange.change(from: try previous.entry(entry.id), to: entry) { changes.append(change) }
    }
}
