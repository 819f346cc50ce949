import FakeAirtable
import Foundation
import XCTest

/// Every filter, alone and combined, returns exactly what the same rule picks from a full listing; typed values can
/// never widen a result.
final class FilterTests: FakeAirtableTestCase {
    private struct Row {
        var id: String
        var name: String
        var notes: String
        var due: String?
        var complete: Bool
        var category: String?
        var leadName: String?
        var leadEmail: String?
    }

    private func rows(_ arguments: [String]) throws -> [Row] {
        let result = try tracker().run(["list", "--json"] + arguments)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
        let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return array.map { object in
            let lead = object["lead"] as? [String: Any]
            return Row(
                id: object["id"] as! String, name: object["name"] as? String ?? "",
                notes: object["notes"] as? String ?? "",
                due: object["due"] as? String, complete: object["complete"] as? Bool ?? false,
                category: object["category"] as? String, leadName: lead?["name"] as? String,
                leadEmail: lead?["email"] as? String)
        }
    }

    /// The clock, read once per test, so every date a test works out agrees even across midnight.
    private lazy var now = Date()

    private var today: String { day(0) }

    private func day(_ offset: Int) -> String { localDay(offset, from: now) }

    func testEveryFilterAloneAndCombinedMatchesTheSameRuleAppliedLocally() throws {
        try startFake(records: FakeAirtable.recordedProjects + FakeAirtable.generatedProjects(count: 240))
        let all = try rows([])
        XCTAssertEqual(all.count, 256)
        let today = self.today, soon = day(6), cutoff = day(5)  // within 7 days: today and the 6 after
        let filters: [(String, [String], (Row) -> Bool)] = [
            ("overdue", ["--overdue"], { !$0.complete && $0.due.map { $0 < today } == true }),
            ("due-before", ["--due-before", cutoff], { $0.due.map { $0 < cutoff } == true }),
            ("due-within", ["--due-within", "7"], { $0.due.map { $0 >= today && $0 <= soon } == true }),
            ("complete", ["--complete"], { $0.complete }),
            ("incomplete", ["--incomplete"], { !$0.complete }),
            ("category", ["--category", "Healthcare design"], { $0.category == "Healthcare design" }),
            ("lead name", ["--lead", "cameron toth"], { $0.leadName?.lowercased() == "cameron toth" }),
            (
                "lead email", ["--lead", "katherineduh+collab10@demo.htable.com"],
                { $0.leadEmail == "katherineduh+collab10@demo.htable.com" }
            ),
            (
                "search", ["--search", "BRAND"],
                { $0.name.lowercased().contains("brand") || $0.notes.lowercased().contains("brand") }
            ),
            ("search notes", ["--search", "ünïcödé"], { $0.notes.contains("ünïcödé") }),
        ]
        for (label, arguments, rule) in filters {
            let expected = Set(all.filter(rule).map(\.id))
            XCTAssertFalse(expected.isEmpty, "\(label) should match something in the data")
            XCTAssertEqual(Set(try rows(arguments).map(\.id)), expected, label)
        }
        for (first, second) in [(0, 5), (2, 4), (3, 5), (1, 8), (4, 6), (5, 8), (0, 7)] {
            let (a, b) = (filters[first], filters[second])
            let expected = Set(all.filter { a.2($0) && b.2($0) }.map(\.id))
            XCTAssertEqual(Set(try rows(a.1 + b.1).map(\.id)), expected, "\(a.0) + \(b.0)")
        }
    }

    func testSortAndLimitAreDoneByAirtable() throws {
        try startFake(records: FakeAirtable.generatedProjects(count: 150))
        let sorted = try rows(["--sort", "due", "--desc", "--limit", "120"])
        XCTAssertEqual(sorted.count, 120)
        XCTAssertEqual(sorted.compactMap(\.due), sorted.compactMap(\.due).sorted(by: >))
        XCTAssertTrue(
            fake.recordLog.allSatisfy {
                // One more than the limit, to tell whether more match.
                $0.query.contains("maxRecords=121") && $0.query.contains("sort%5B0%5D%5Bfield%5D=Due%20date")
            })
        let names = try rows(["--sort", "name", "--limit", "3"]).map(\.name)
        XCTAssertEqual(names, ["Project 00001", "Project 00002", "Project 00003"])
    }

    func testHostileValuesStayValues() throws {
        var records = FakeAirtable.recordedProjects
        records.append([
            "id": "recHOSTILE0000001", "createdTime": "2026-01-01T00:00:00.000Z",
            "fields": ["Name": #"it's a "quoted" test"#],
        ])
        try startFake(records: records)
        for value in [
            "x'), TRUE(), ('", #"x"), TRUE(), (""#, "' & '", "\\", "\\'", "{Name}", "')) OR TRUE() OR (('", "a\nb",
            "'\n,TRUE(),'",
            "%27", "a' = 'a",
        ] {
            for flag in ["--search", "--category", "--lead"] {
                let result = try rows([flag, value])
                XCTAssertEqual(result.count, 0, "\(flag) \(value.debugDescription) matched \(result.map(\.name))")
            }
        }
        XCTAssertEqual(try rows(["--search", #"it's a "quoted""#]).map(\.id), ["recHOSTILE0000001"])
        XCTAssertTrue(
            fake.recordLog.allSatisfy { $0.status == 200 },
            "no formula was ever malformed: \(fake.recordLog.map(\.status))")
    }

    func testAFilterTooLongForAURLGoesThroughListRecords() throws {
        try startFake(records: FakeAirtable.generatedProjects(count: 150))
        let needle = "Project 0001" + String(repeating: "x", count: 9000)
        XCTAssertEqual(try rows(["--search", needle]).count, 0)
        XCTAssertEqual(try rows(["--search", String(repeating: "ü", count: 3000), "--incomplete"]).count, 0)
        XCTAssertEqual(fake.recordLog.map(\.method), ["POST", "POST"])
        XCTAssertTrue(fake.recordLog.allSatisfy { $0.path.hasSuffix("/listRecords") && $0.status == 200 })
        XCTAssertEqual(try rows(["--search", "Project 0001"]).count, 10)
    }

    func testFilterUsageErrors() throws {
        try startFake()
        for (arguments, message) in [
            (["--complete", "--incomplete"], "--complete and --incomplete cannot be used together"),
            (["--due-before", "2026-02-30"], "--due-before '2026-02-30' is not a real date"),
            (["--due-within", "-1"], "--due-within must be a whole number from 1 to 1,000,000, not '-1'"),
            (["--due-within", "0"], "--due-within must be a whole number from 1 to 1,000,000, not '0'"),
            (["--limit", "0"], "--limit must be a whole number from 1 to 1,000,000, not '0'"),
            (["--sort", "priority"], "--sort: the table has no field \"priority\". 'tracker doctor' lists its fields"),
            (["--desc"], "--desc needs --sort FIELD"), (["--search", ""], "--search must not be empty"),
        ] {
            let result = try tracker().run(["list"] + arguments)
            XCTAssertEqual(result.status, 64)
            XCTAssertEqual(result.stderr, "tracker: \(message)\nRun 'tracker help list' for usage.\n")
        }
        XCTAssertTrue(fake.recordLog.isEmpty, "nothing was listed; only the schema was read, to know the fields")
    }
}
