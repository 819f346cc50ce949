import FakeAirtable
import Foundation
import Testing

@_spi(Writing) @testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct ProjectAPIClientTests {
    @Test func decodesTheRecordedResponseWithoutLoss() throws {
        let data = FakeAirtable.recordedResponse
        let page = try RecordDecoding.projects(data, map: .template)
        #expect(page.records.count == 16)
        #expect(page.offset == nil)
        let raw =
            try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])["records"] as! [[String: Any]]
        for (project, record) in zip(page.records, raw) {
            let fields = record["fields"] as! [String: Any]
            #expect(project.id == record["id"] as? String)
            #expect(project.createdTime == record["createdTime"] as? String)
            #expect(project.name == fields["Name"] as? String)
            #expect(project.category == fields["Category"] as? String)
            #expect(project.isComplete == (fields["Complete"] as? Bool ?? false))
            #expect(project.due?.description == fields["Due date"] as? String)
            #expect(project.kickoff?.description == fields["Kickoff date"] as? String)
            #expect(project.notes == fields["Notes"] as? String)
            #expect(project.clients == (fields["Client"] as? [String] ?? []))
            let lead = fields["Project lead"] as? [String: String]
            #expect(project.lead == lead.map { Collaborator(id: $0["id"], name: $0["name"], email: $0["email"]) })
            let team = (fields["Project team"] as? [[String: String]] ?? []).map {
                Collaborator(id: $0["id"], name: $0["name"], email: $0["email"])
            }
            #expect(project.team == team)
            // The template's other fields come through under their own names, in the order Airtable sent them.
            let others = (record["fields"] as! [String: Any]).keys.filter { ["Project images", "Tasks"].contains($0) }
            #expect(Set(project.otherFields.map(\.name)) == Set(others))
        }
        // Two notes carry an em dash and one has line breaks: both survive untouched, and nothing is decoded twice
        // (the recording has "—", never "â€”").
        #expect(page.records.filter { $0.notes?.contains("—") == true }.count == 2)
        #expect(page.records.allSatisfy { !($0.notes ?? "").contains("â€") && !($0.notes ?? "").contains("Ã") })
        #expect(
            page.records.first { $0.name == "EngineerU brand identity" }?.notes?.components(separatedBy: "\n").count
                == 4)
    }

    @Test func aRecordWithOnlyANameDecodes() throws {
        let project = try RecordDecoding.project(
            Data(#"{"id":"recA","createdTime":"2026-01-01T00:00:00.000Z","fields":{"Name":"Bare"}}"#.utf8),
            map: .template)
        #expect(project == Project(id: "recA", createdTime: "2026-01-01T00:00:00.000Z", name: "Bare"))
        let empty = try RecordDecoding.project(Data(#"{"id":"recB","fields":{}}"#.utf8), map: .template)
        #expect(empty.name == nil && empty.team.isEmpty && !empty.isComplete)
    }

    @Test func listingFollowsOffsetsAndAsksForTheFieldsItWasGiven() async throws {
        let host = StubTransport.host([
            .http(200, body: Fixture.page(["a", "b"], offset: "itrX/rec2")),
            .http(200, body: Fixture.page(["c"], first: 2, offset: "itrY/rec3")),
            .http(200, body: Fixture.page(["d"], first: 3)),
        ])
        var pages: [[String]] = []
        // Without fields[] Airtable sends every field (the JSON output carries the base's own); with it, only those.
        try await Fixture.client(host).listProjects(ListQuery(fields: ["Name", "Due date"])) {
            pages.append($0.compactMap(\.name))
        }
        #expect(pages == [["a", "b"], ["c"], ["d"]])
        let urls = host.requests.map { $0.url.absoluteString }
        #expect(
            urls[0].hasSuffix(
                "/v0/appTESTbase000001/Design%20projects?pageSize=100&fields%5B%5D=Name&fields%5B%5D=Due%20date"))
        #expect(urls[1].hasSuffix("&offset=itrX%2Frec2"))
        #expect(urls[2].hasSuffix("&offset=itrY%2Frec3"))
        for request in host.requests {
            #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer \(Fixture.token)")
            #expect(!request.url.absoluteString.contains(Fixture.token))
        }
    }

    @Test func theNextPageIsAskedForWhileThisOneIsShown() async throws {
        let host = StubTransport.host([
            .http(200, body: Fixture.page(["a"], offset: "itrX/rec1")),
            .http(200, body: Fixture.page(["b"], first: 1)),
        ])
        var askedDuringFirst = false
        try await Fixture.client(host).listProjects(ListQuery()) { page in
            guard page.first?.name == "a" else { return }
            // Shown slowly: the second page's request goes out meanwhile (given up to 30 s to appear on a busy machine).
            let deadline = Date().addingTimeInterval(30)
            while host.requests.count < 2 && Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
            askedDuringFirst = host.requests.count == 2
        }
        #expect(askedDuringFirst)
        #expect(host.requests.count == 2)
    }

    @Test func anExpiredCursorRestartsTheListingWithoutRepeats() async throws {
        let expired = #"{"error":{"type":"LIST_RECORDS_ITERATOR_NOT_AVAILABLE"}}"#
        let host = StubTransport.host([
            .http(200, body: Fixture.page(["a", "b"], offset: "itr1/rec2")),
            .http(422, body: expired),
            .http(200, body: Fixture.page(["a", "b"], offset: "itr2/rec2")),
            .http(200, body: Fixture.page(["c", "d"], first: 2)),
        ])
        var seen: [String] = []
        try await Fixture.client(host).listProjects(ListQuery()) { seen += $0.compactMap(\.name) }
        #expect(seen == ["a", "b", "c", "d"])
        #expect(host.requests.count == 4)
        #expect(!host.requests[2].url.absoluteString.contains("offset="))
    }

    @Test(arguments: [
        (
            "<html><body>502 Bad Gateway</body></html>",
            "unexpected answer from Airtable: got an HTML page instead of JSON"
        ),
        ("", "unexpected answer from Airtable: the body is empty"),
        ("not json", "unexpected answer from Airtable: the body is not JSON"),
        (#"{"data":[]}"#, "unexpected answer from Airtable: records is missing"),
        (
            #"{"records":[{"id":"recA","fields":{"Due date":"soon"}}]}"#,
            "unexpected answer from Airtable: records[0].fields.Due date: \"soon\" is not a YYYY-MM-DD date"
        ),
        (
            #"{"records":[{"id":"recA","fields":{"Complete":"yes"}}]}"#,
            "unexpected answer from Airtable: records[0].fields.Complete is not true or false"
        ),
    ])
    func aBodyThatIsNotAPageIsAClearError(body: String, message: String) async throws {
        let host = StubTransport.host([.http(200, body: body)])
        var pages = 0
        let error = await #expect(throws: AppError.self) {
            try await Fixture.client(host).listProjects(ListQuery()) { _ in pages += 1 }
        }
        #expect(error?.message == message)
        #expect(error?.exitCode == .unavailable)
        #expect(pages == 0)
    }

    @Test func longQueriesGoThroughListRecordsByPOST() async throws {
        let host = StubTransport.host([.http(200, body: Fixture.page(["a"]))])
        let formula = "{Name} = '" + String(repeating: "x", count: 16_000) + "'"
        try await Fixture.client(host).listProjects(ListQuery(filterByFormula: formula)) { _ in }
        let request = try #require(host.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.path.hasSuffix("/Design projects/listRecords"))
        let body = try #require(try JSONSerialization.jsonObject(with: request.body!) as? [String: Any])
        #expect(body["filterByFormula"] as? String == formula)
        #expect(body["pageSize"] as? Int == 100)
    }

    @Test(arguments: [(15_999, "GET"), (16_000, "POST"), (16_001, "POST")])
    func aURLOf16000CharactersOrMoreGoesAsPOST(length: Int, method: String) async throws {
        let host = StubTransport.host([.http(200, body: #"{"records":[]}"#), .http(200, body: #"{"records":[]}"#)])
        let client = Fixture.client(host)
        // The length is measured on the wire, not with tracker's own encoder: a one-"x" formula's URL as sent, and
        // every further "x" adds one character.
        try await client.listProjects(ListQuery(filterByFormula: "x")) { _ in }
        let probe = try #require(host.requests.first?.url.absoluteString)
        let formula = String(repeating: "x", count: length - (probe.count - 1))
        try await client.listProjects(ListQuery(filterByFormula: formula)) { _ in }
        let request = try #require(host.requests.last)
        #expect(host.requests.count == 2)
        #expect(request.method == method)
        if method == "GET" { #expect(request.url.absoluteString.count == length) }
    }

    @Test func aRecordIDIsLookedUpInsideTheTableNeverByGET() async throws {
        // Airtable's GET of one record returns records of any table of the base, so tracker filters the table.
        let host = StubTransport.host([.http(200, body: #"{"records":[]}"#)])
        let found = try await Fixture.client(host).candidates(for: ["recAAAAAAAAAAAAAA"]).get()
        #expect(found.isEmpty)
        let url = try #require(host.requests.first?.url)
        #expect(url.path == "/v0/appTESTbase000001/Design projects")
        let formula = try #require(
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "filterByFormula" }?
                .value)
        #expect(formula == "OR(RECORD_ID() = 'recAAAAAAAAAAAAAA', LOWER({Name}) = LOWER('recAAAAAAAAAAAAAA'))")
    }

    @Test func createSendsTheCheckedFieldsWithoutTypecast() async throws {
        let host = StubTransport.host([.http(200, body: Fixture.record(id: "recNEWNEWNEWNEW01", name: "X"))])
        let write = ProjectWrite([
            (.name, .string("X")), (.due, .string("2026-12-01")), (.category, .string("Brand identity")),
            (.lead, .object([("email", .string("a@example.com"))])), (.client, .array([.string("recCLIENTclient01")])),
            (.notes, .string("n")), (.complete, .bool(true)),
        ])
        let project = try await Fixture.client(host).createProject(write, name: "X", due: CalendarDate("2026-12-01")!)
            .get()
        #expect(project.id == "recNEWNEWNEWNEW01")
        let body = String(decoding: host.requests[0].body!, as: UTF8.self)
        #expect(
            body
                == #"{"fields":{"Name":"X","Due date":"2026-12-01","Category":"Brand identity","Project lead":{"email":"a@example.com"},"Client":["recCLIENTclient01"],"Notes":"n","Complete":true}}"#
        )
        #expect(!body.contains("typecast"))
        #expect(host.requests[0].value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func aLostCreateAnswerIsResolvedByLookingForTheProject() async throws {
        // The clock says 2026-11-19T...; the project was created just now.
        let created = Fixture.record(id: "recCREATED0000001", name: "X", created: "2026-11-19T08:00:00.000Z")
        let older = Fixture.record(id: "recOLDOLDOLDOLD01", name: "X", created: "2020-01-01T00:00:00.000Z")
        let host = StubTransport.host([
            .failure(.broken("connection reset")),
            .http(200, body: #"{"records":[\#(older),\#(created)]}"#),
        ])
        let project = try await Fixture.client(host).createProject(
            Fixture.write(name: "X"), name: "X", due: CalendarDate("2026-12-01")!
        ).get()
        #expect(project.id == "recCREATED0000001")
        #expect(host.requests.map(\.method) == ["POST", "GET"])
        #expect(host.requests[1].url.query!.contains("filterByFormula=%7BName%7D%20%3D%20%27X%27"))
    }

    @Test func aLostCreateIsNeverSentAgainAndEndsUnknownWhenTheProjectNeverAppears() async throws {
        let older = Fixture.record(id: "recOLDOLDOLDOLD01", name: "X", created: "2020-01-01T00:00:00.000Z")
        let host = StubTransport.host([.failure(.timedOut)], fallback: .http(200, body: #"{"records":[\#(older)]}"#))
        let clock = TestClock()
        let error = try #require(
            await Fixture.client(host, clock: clock, budget: 20).createProject(
                Fixture.write(name: "X"), name: "X", due: CalendarDate("2026-12-01")!
            ).failure)
        #expect(error == .createOutcomeUnknown(name: "X", waitedSeconds: 15))
        #expect(error.exitCode == .temporaryFailure)
        #expect(host.requests.map(\.method) == ["POST", "GET", "GET", "GET", "GET", "GET"])
        #expect(clock.sleeps == [1, 2, 4, 8])
    }

    @Test func aLostCommentIsNeverSentAgainAndEndsUnknownNamingWhereToCheck() async throws {
        let host = StubTransport.host(
            [.failure(.timedOut)], fallback: .http(200, body: #"{"comments":[],"offset":null}"#))
        let clock = TestClock()
        let error = try #require(
            await Fixture.client(host, clock: clock, budget: 20).addComment(
                "Looks good", to: "recPROJECTproj001", by: "usrME"
            ).failure)
        #expect(error == .commentOutcomeUnknown(waitedSeconds: 15))
        #expect(error.exitCode == .temporaryFailure)
        #expect(error.hint?.contains("tracker comments") == true)
        #expect(host.requests.map(\.method) == ["POST", "GET", "GET", "GET", "GET", "GET"])
    }

    /// With two minutes of retry budget, looking for a lost create still stops after about 20 s, and the status line
    /// says what is being checked.
    @Test func lookingForALostCreateIsBoundedAndSaysWhatItChecks() async throws {
        let host = StubTransport.host(
            [.http(502, body: "")], fallback: .http(200, body: #"{"records":[]}"#))
        let clock = TestClock()
        let notices = Recorder()
        let client = ProjectAPIClient(
            access: Fixture.configuration(host: host.name).access,
            network: Fixture.network(clock: clock, budget: 120, notices: notices),
            now: { Date(timeIntervalSince1970: 1_795_000_000) })
        let error = try #require(
            await client.createProject(Fixture.write(name: "X"), name: "X", due: CalendarDate("2026-12-01")!).failure)
        #expect(error == .createOutcomeUnknown(name: "X", waitedSeconds: 15))
        #expect(clock.sleeps.reduce(0, +) <= 20, "about 20 s, as the status line says")
        #expect(
            notices.text.contains(#"checking whether "X", due 2026-12-01, was made (up to 20 s)"#), "\(notices.text)")
    }

    @Test func aCreateAppliedLateIsFoundByLookingAgain() async throws {
        let late = Fixture.record(id: "recLATELATELATE01", name: "X", created: "2026-11-19T08:00:05.000Z")
        let host = StubTransport.host([
            .http(503, body: #"{"error":{"type":"RETRIABLE_ERROR"}}"#),
            .http(200, body: #"{"records":[]}"#), .http(200, body: #"{"records":[]}"#),
            .http(200, body: #"{"records":[\#(late)]}"#),
        ])
        let project = try await Fixture.client(host).createProject(
            Fixture.write(name: "X"), name: "X", due: CalendarDate("2026-12-01")!
        ).get()
        #expect(project.id == "recLATELATELATE01")
        #expect(host.requests.filter { $0.method == "POST" }.count == 1)
    }

    @Test func anUnreadableAnswerToACreateMeansItWasAppliedSoTrackerLooks() async throws {
        let created = Fixture.record(id: "recCREATED0000001", name: "X", created: "2026-11-19T08:00:00.000Z")
        let host = StubTransport.host([
            .http(200, body: #"{"id":"rec"#), .http(200, body: #"{"records":[\#(created)]}"#),
        ])
        let project = try await Fixture.client(host).createProject(
            Fixture.write(name: "X"), name: "X", due: CalendarDate("2026-12-01")!
        ).get()
        #expect(project.id == "recCREATED0000001")
        #expect(host.requests.map(\.method) == ["POST", "GET"])
    }

    @Test func whenTheLookupFailsTooTheOutcomeIsReportedUnknown() async throws {
        let host = StubTransport.host(
            [.failure(.broken("connection reset"))], fallback: .failure(.unreachable("connection refused")))
        let error = try #require(
            await Fixture.client(host).createProject(
                Fixture.write(name: "X"), name: "X", due: CalendarDate("2026-12-01")!
            ).failure)
        guard case .createOutcomeUnknown(let name, _, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(name == "X")
        #expect(error.exitCode == .temporaryFailure)
        #expect(host.requests.filter { $0.method == "POST" }.count == 1)
    }

    @Test(arguments: [
        ("it's", "{Name} = 'it\\'s'"),
        (#"back\slash"#, #"{Name} = 'back\\slash'"#),
        ("x'), TRUE(), ('", "{Name} = 'x\\'), TRUE(), (\\''"),
        ("line\nbreak", "{Name} = 'line\\nbreak'"),
        ("{Notes}", "{Name} = '{Notes}'"),
    ])
    func namesStayStringLiterals(name: String, formula: String) {
        #expect(Formula.nameEquals(name, field: "Name") == formula)
    }
}

@Suite struct DemoTextTests {
    /// Text decoded twice (UTF-8 read as Windows-1252) shows as "â€”", "Ã©": the demo holds it as Airtable does.
    @Test func theDemoBaseHoldsTextAsAirtableDoes() {
        let (_, records) = FakeAirtable.demo(today: "2026-11-26")
        func strings(_ value: Any) -> [String] {
            switch value {
            case let text as String: [text]
            case let list as [Any]: list.flatMap(strings)
            case let object as [String: Any]: object.values.flatMap(strings)
            default: []
            }
        }
        let texts = records.flatMap(strings)
        #expect(texts.contains { $0.contains("bicycle—one") })
        for marker in ["â€", "Ã", "Â"] { #expect(!texts.contains { $0.contains(marker) }, "\(marker)") }
    }
}
