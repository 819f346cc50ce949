import Foundation
import Testing

@testable import TrackerModel
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct TableChangesTests {
    typealias Entry = TableSnapshot.Entry

    static let old = [
        Entry(id: "rec1", name: "Logo", words: ["due": "2026-12-01", "lead": "Ana"], fields: ["Budget": "1,200"]),
        Entry(id: "rec2", name: "Gone", words: [:], fields: [:]),
        Entry(id: "rec3", name: "Same", words: ["due": "2026-12-05"], fields: [:]),
        Entry(id: "rec4", name: "Open", words: [:], fields: [:]),
    ]
    static let new = [
        Entry(
            id: "rec1", name: "Logo v2", words: ["due": "2026-12-08", "notes": "x"], fields: ["Budget": "1,500"]),
        Entry(id: "rec3", name: "Same", words: ["due": "2026-12-05"], fields: [:]),
        Entry(id: "rec4", name: "Open", words: ["complete": "yes"], fields: [:]),
        Entry(id: "rec5", name: "New\u{1B}[2J one", words: ["due": "2027-01-01"], fields: [:]),
    ]

    @Test func aLineWrittenStraightFromTheProjectIsTheEntrysLine() {
        let people = [Collaborator(id: "usr1", name: "Ana"), Collaborator(id: "usr2", email: "bo@example.com")]
        let projects = [
            Project(id: "recA", createdTime: ""),
            Project(
                id: "recB", createdTime: "", name: "Logo \"x\"\n", category: "Brand", isComplete: true,
                kickoff: CalendarDate("2026-11-01"), due: CalendarDate("2026-12-01"), lead: people[0], team: people,
                clients: ["recC1", "recC2"], notes: "n\t",
                otherFields: [
                    FieldValue("Zeta", .number(3)), FieldValue("Budget", .string("1200")),
                    FieldValue("Ärger", .bool(true)),
                    FieldValue("Empty", .string("")),
                ]),
        ]
        let formatter = FieldFormatter(table: nil, recordNames: ["recC1": "Acme"])
        for project in projects {
            var straight = JSONWriter()
            TableSnapshot.writeLine(project, formatter: formatter, to: &straight)
            var built = JSONWriter()
            TableSnapshot.entry(project, formatter: formatter).write(to: &built)
            #expect(straight.text == built.text)
        }
    }

    @Test func aLargeSnapshotFindsEachProjectByItsIdAndReportsOnlyWhatChanged() throws {
        let formatter = FieldFormatter(table: nil, recordNames: [:])
        func project(_ number: Int, due: String = "2026-12-01") -> Project {
            Project(id: "rec\(number)", createdTime: "", name: "Project \(number)", due: CalendarDate(due))
        }
        var first = TableComparison(
            previous: nil, formatter: formatter, capacity: 0,
            header: TableSnapshot.header(baseID: "appA", table: "Design projects", selection: ""))
        try first.add((0..<5000).map { project($0) })
        #expect(first.changes.isEmpty && first.count == 5000 && first.missing.isEmpty)
        let stored = try TableSnapshot.read(first.file.bytes, baseID: "appA", table: "Design projects", selection: "")
        #expect(stored.count == 5000)
        for number in [0, 1, 2499, 4999] { #expect(stored.position(of: "rec\(number)") == number) }
        #expect(stored.position(of: "rec5000") == nil && stored.position(of: "rec") == nil)
        #expect(stored.position(of: "rec12") != nil && stored.position(of: "rec1") == 1)

        var second = TableComparison(
            previous: stored, formatter: formatter, capacity: 0,
            header: TableSnapshot.header(baseID: "appA", table: "Design projects", selection: ""))
        // Every project but 17 and 4000, 300 with a new due date, and one added.
        let kept = (0..<5000).filter { $0 != 17 && $0 != 4000 }
        try second.add(kept.map { $0 % 16 == 3 ? project($0, due: "2027-01-05") : project($0) } + [project(5000)])
        #expect(second.missing == ["rec17", "rec4000"])
        #expect(second.changes.filter { $0.kind == .changed }.count == kept.filter { $0 % 16 == 3 }.count)
        #expect(second.changes.last?.kind == .added && second.changes.last?.id == "rec5000")
        #expect(second.changes.first?.lines == ["Project 3: due 2026-12-01 → 2027-01-05"])
    }

    @Test func everyDifferenceIsOneLineAndNothingUnchangedIsSaid() {
        let changes = TableChange.between(Self.old, Self.new)
        #expect(changes.map(\.kind) == [.changed, .changed, .added, .deleted])
        #expect(
            changes.flatMap(\.lines) == [
                "Logo v2: renamed from Logo", "Logo v2: due 2026-12-01 → 2026-12-08", "Logo v2: lead Ana → none",
                "Logo v2: notes changed", "Logo v2: Budget: 1,200 → 1,500", "Open: done",
                "added New^[[2J one (due 2027-01-01)", "deleted Gone",
            ])
        #expect(TableChange.between(Self.new, Self.new).isEmpty)
        let reopened = TableChange.between(Array(Self.new[2...2]), Array(Self.old[3...3]))
        #expect(reopened.flatMap(\.lines) == ["Open: reopened"])
    }

    @Test func jsonCarriesFromAndToWithCompleteAsBooleans() {
        let changes = TableChange.between(Self.old, Self.new)
        #expect(
            changes[1].json.serialized()
                == #"{"id":"rec4","name":"Open","change":"changed","fields":{"complete":{"from":false,"to":true}}}"#)
        #expect(changes[3].json.serialized() == #"{"id":"rec2","name":"Gone","change":"deleted","fields":{}}"#)
        #expect(changes[0].json["fields"]?["lead"]?["to"] == .null)
    }

    @Test func aSnapshotReadsBackAndAnyOtherIsRefused() throws {
        let data = snapshotFile(baseID: "appA", table: "Design projects", selection: "", entries: Self.new)
        let read = try TableSnapshot.read(data, baseID: "appA", table: "Design projects", selection: "")
        #expect(read.ids == Self.new.map(\.id))
        for entry in Self.new { #expect(try read.entry(entry.id) == entry) }
        #expect(try read.entry("recNONE") == nil)
        // Equal values give equal lines, whatever order the dictionaries hold them in.
        #expect(Self.new[0].line == TableSnapshot.Entry(line: Substring(Self.new[0].line))?.line)
        #expect(throws: TableSnapshot.Problem.self) {
            try TableSnapshot.read(data, baseID: "appB", table: "Design projects", selection: "")
        }
        #expect(throws: TableSnapshot.Problem.self) {
            try TableSnapshot.read(data, baseID: "appA", table: "Design projects", selection: "overdue")
        }
        let twice = String(decoding: data, as: UTF8.self) + Self.new[0].line + "\n"
        let cut = String(decoding: data.dropLast(), as: UTF8.self)
        let garbled = String(decoding: data, as: UTF8.self).replacingOccurrences(of: #""words""#, with: "x")
        for bad in [twice, cut, garbled] {
            #expect(throws: TableSnapshot.Problem.self) {
                let stored = try TableSnapshot.read(
                    Array(bad.utf8), baseID: "appA", table: "Design projects", selection: "")
                for id in stored.ids { _ = try stored.entry(id) }
            }
        }
        for bad in [
            "", "[]", #"{"tracker":"changes","version":1}"#, String(decoding: data.prefix(40), as: UTF8.self),
        ] {
            #expect(throws: TableSnapshot.Problem.self) {
                try TableSnapshot.read(Array(bad.utf8), baseID: "appA", table: "Design projects", selection: "")
            }
        }
    }

    @Test(arguments: [
        (["changes"], Changes()),
        (["changes", "--peek", "--json"], Changes(format: .json, peek: true)),
        (["changes", "--format", "NDJSON", "--reset"], Changes(format: .ndjson, reset: true)),
        (
            ["changes", "--overdue", "--view", "Active"],
            Changes(filters: ProjectFilters(overdue: true), view: "Active")
        ),
    ])
    func optionsAreRead(arguments: [String], expected: Changes) throws {
        let invocation = try Invocation.parse(arguments, today: CalendarDate("2026-11-24")!).get()
        #expect(invocation.command as? Changes == expected)
    }

    @Test func theSelectionNamesTheSnapshotWhateverTheCase() {
        #expect(Changes(filters: ProjectFilters(category: "Brand Identity")).selection == "category brand identity")
        #expect(Changes().selection.isEmpty)
    }
}

extension TableChange {
    /// The changes from `old` to `new` as `changes` finds them: added and changed ones in `new`'s order, then the
    /// deleted ones in `old`'s.
    static func between(_ old: [TableSnapshot.Entry], _ new: [TableSnapshot.Entry]) -> [TableChange] {
        let before = Dictionary(old.map { ($0.id, $0) }) { first, _ in first }
        let present = Set(new.map(\.id))
        return new.compactMap { change(from: before[$0.id], to: $0) }
            + old.filter { !present.contains($0.id) }.map(deleted)
    }
}

extension TableSnapshot.Entry {
    /// The entry's line, as `changes` writes it.
    var line: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }
}

/// A snapshot file as `changes` writes it: the header, then a line a project.
func snapshotFile(baseID: String, table: String, selection: String, entries: [TableSnapshot.Entry]) -> [UInt8] {
    Array(
        (TableSnapshot.header(baseID: baseID, table: table, selection: selection) + "\n"
            + entries.map { $0.line + "\n" }.joined()).utf8)
}
