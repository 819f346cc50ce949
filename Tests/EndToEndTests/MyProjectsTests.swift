import FakeAirtable
import Foundation
import XCTest

/// `--mine`, `--lead me` and `--team me` (docs/contract.md "Who you are"): matched on the token's user id from whoami.
final class MyProjectsTests: FakeAirtableTestCase {
    /// Leslie Walker, who leads 3 recorded projects and is in the team of 5.
    static let leslie = (id: "usrSdmrY5yGdbcZzg", email: "katherineduh+collab23@demo.htable.com")

    private func startAsLeslie(email: Bool = false) throws {
        var options = FakeAirtable.Options()
        options.user = (Self.leslie.id, email ? Self.leslie.email : nil)
        try startFake(options: options)
    }

    /// The ids of the recorded projects whose lead (or, with `team`, team) includes Leslie, from the fake's own records.
    private func lesliesProjects(lead: Bool, team: Bool) -> Set<String> {
        Set(
            fake.records.filter { record in
                let fields = record["fields"] as? [String: Any] ?? [:]
                let leads = (fields["Project lead"] as? [String: Any])?["id"] as? String == Self.leslie.id
                let member = (fields["Project team"] as? [[String: Any]] ?? []).contains {
                    $0["id"] as? String == Self.leslie.id
                }
                return (lead && leads) || (team && member)
            }.map { $0["id"] as! String })
    }

    private func ids(_ result: ProcessResult) throws -> Set<String> {
        XCTAssertEqual(result.status, 0, result.stderr)
        let projects = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return Set(projects.map { $0["id"] as! String })
    }

    private var whoamiRequests: Int { fake.log.filter { $0.path == "/v0/meta/whoami" }.count }

    func testMineIsLeadOrTeamMatchedOnTheUserIdAskedOnceAndRemembered() throws {
        try startAsLeslie()
        let run = tracker()
        let mine = try ids(try run.run(["list", "--mine", "--json"]))
        let expected = lesliesProjects(lead: true, team: true)
        XCTAssertEqual(mine, expected)
        XCTAssertFalse(lesliesProjects(lead: true, team: false).isEmpty)
        XCTAssertFalse(lesliesProjects(lead: false, team: true).isEmpty, "the fixture has Leslie in a team too")
        XCTAssertEqual(whoamiRequests, 1)
        XCTAssertEqual(
            try ids(try run.run(["list", "--lead", "me", "--json"])), lesliesProjects(lead: true, team: false))
        XCTAssertEqual(
            try ids(try run.run(["list", "--team", "ME", "--json"])), lesliesProjects(lead: false, team: true))
        XCTAssertEqual(whoamiRequests, 1, "remembered with the schema")
        // It combines with the other filters, and works in the commands that read many projects.
        let overdue = try ids(try run.run(["list", "--mine", "--overdue", "--json"]))
        XCTAssertTrue(overdue.isSubset(of: expected) && overdue.count < expected.count)
        let calendar = try run.run(["calendar", "--mine", "--all"])
        XCTAssertEqual(calendar.stdout.components(separatedBy: "BEGIN:VEVENT").count - 1, expected.count)
        let report = try run.run(["report", "--mine", "--json", "--days", "366"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertEqual(whoamiRequests, 1)
    }

    func testATeamMemberByNameIsMatchedExactlyNotAsPartOfAName() throws {
        try startAsLeslie()
        let run = tracker()
        let byName = try ids(try run.run(["list", "--team", "leslie walker", "--json"]))
        XCTAssertEqual(byName, lesliesProjects(lead: false, team: true))
        XCTAssertEqual(try ids(try run.run(["list", "--team", "leslie", "--json"])), [], "a name is a whole name")
        let byEmail = try ids(try run.run(["list", "--team", Self.leslie.email.uppercased(), "--json"]))
        XCTAssertEqual(byEmail, byName)
        XCTAssertEqual(whoamiRequests, 0, "only me needs whoami")
    }

    func testSomeoneWhoLeadsNothingHasNoProjects() throws {
        try startFake()
        let result = try tracker().run(["list", "--mine"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "")
    }

    func testDoctorNamesTheTokensUserWithTheEmailWhenGiven() throws {
        try startAsLeslie(email: true)
        let result = try tracker().run(["doctor"])
        XCTAssertTrue(
            result.lines.contains("ok        token accepted (user \(Self.leslie.id), \(Self.leslie.email))"),
            result.stdout)
    }
}
