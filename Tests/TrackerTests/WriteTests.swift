import Foundation
import Testing

@_spi(Writing) @testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

/// Value checks and batched writes, through the stub URLProtocol.
@Suite(.timeLimit(.minutes(2)))
struct ValueCheckTests {
    static let schema = #"""
        {"tables":[{"id":"tblP","name":"Design projects","primaryFieldId":"fld1","fields":[
          {"id":"fld1","name":"Name","type":"singleLineText"},
          {"id":"fld2","name":"Category","type":"singleSelect","options":{"choices":[{"id":"selA","name":"Brand identity"},{"id":"selB","name":"Industrial design"}]}},
          {"id":"fld3","name":"Client","type":"multipleRecordLinks","options":{"linkedTableId":"tblClients0000001"}}]},
         {"id":"tblClients0000001","name":"Customers","primaryFieldId":"fldC","fields":[{"id":"fldC","name":"Company","type":"singleLineText"}]}]}
        """#

    static let denied = StubAnswer.http(403, body: #"{"error":{"type":"INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"}}"#)

    /// A checker for `add` as the command makes one: the first answer is the schema (`denied` for none).
    func checker(_ answers: [StubAnswer]) async throws -> (ValueChecker, StubTransport.Host) {
        let host = StubTransport.host(answers)
        let client = Fixture.client(host)
        let knowledge = BaseKnowledge(client: client, cache: nil, now: Date.init)
        let layout = try await knowledge.layout()
        let checker = ValueChecker(
            client: client.using(layout.fields), knowledge: knowledge, layout: layout, command: "add",
            today: CalendarDate(year: 2026, month: 11, day: 22)!, timeZone: Zone(identifier: "UTC")!)
        return (checker, host)
    }

    @Test func aCategoryIsMatchedIgnoringCaseAndSentInTheChoicesSpelling() async throws {
        let (checker, host) = try await checker([.http(200, body: Self.schema)])
        #expect(try await checker.category("brand IDENTITY") == "Brand identity")
        #expect(try await checker.category("Industrial design") == "Industrial design")
        #expect(host.requests.count == 1, "the schema is read once")
    }

    @Test func anUnknownCategoryIsAUsageErrorListingTheChoices() async throws {
        let (checker, _) = try await checker([.http(200, body: Self.schema)])
        await #expect(
            throws: AppError.usage(
                "unknown category \"Brand identiy\"; the choices are \"Brand identity\", \"Industrial design\". Did you mean \"Brand identity\"?",
                command: "add")
        ) { try await checker.category("Brand identiy") }
    }

    @Test func withoutSchemaAccessTheCategoriesAreWhatTheTableHolds() async throws {
        let denied = Self.denied
        let one = #"{"records":[{"id":"recA","fields":{"Category":"Brand identity"}}]}"#
        let (found, host) = try await checker([denied, .http(200, body: one)])
        #expect(try await found.category("brand identity") == "Brand identity")
        let formula = try #require(host.requests.last.flatMap(Self.formula))
        #expect(formula == "LOWER({Category}) = LOWER('brand identity')")

        let seen =
            #"{"records":[{"id":"recA","fields":{"Category":"Zeta"}},{"id":"recB","fields":{"Category":"Alpha"}}]}"#
        let (missing, _) = try await checker([denied, .http(200, body: #"{"records":[]}"#), .http(200, body: seen)])
        await #expect(
            throws: AppError.usage("unknown category \"Nope\"; the choices are \"Alpha\", \"Zeta\".", command: "add")
        ) { try await missing.category("Nope") }
    }

    @Test func clientsAreResolvedToIdsInTheLinkedTableInOneRequest() async throws {
        let clients =
            #"{"records":[{"id":"recACMEacme000001","fields":{"Company":"Acme"}},{"id":"recGLOBEX00000001","fields":{"Company":"Globex"}}]}"#
        let (checker, host) = try await checker([.http(200, body: Self.schema), .http(200, body: clients)])
        #expect(
            try await checker.clientIDs(["acme", "recGLOBEX00000001"]) == ["recACMEacme000001", "recGLOBEX00000001"])
        let request = try #require(host.requests.last)
        #expect(request.url.path == "/v0/appTESTbase000001/tblClients0000001")
        #expect(
            Self.formula(request)
                == "OR(LOWER({Company}) = LOWER('acme'), RECORD_ID() = 'recGLOBEX00000001', LOWER({Company}) = LOWER('recGLOBEX00000001'))"
        )
    }

    @Test func anUnknownClientIsAUsageErrorWithCloseNames() async throws {
        let close = #"{"records":[{"id":"recACMEacme000001","fields":{"Company":"Acme Corp"}}]}"#
        let (checker, _) = try await checker([
            .http(200, body: Self.schema), .http(200, body: #"{"records":[]}"#), .http(200, body: close),
        ])
        await #expect(
            throws: AppError.usage(
                "unknown client \"Acme Crop\" (tracker never creates one). Did you mean \"Acme Corp\"?", command: "add")
        ) { try await checker.clientIDs(["Acme Crop"]) }
    }

    @Test func aCollaboratorNameMustBelongToExactlyOnePerson() async throws {
        let page = #"""
            {"records":[{"id":"recA","fields":{"Project lead":{"id":"usr1","email":"gal@example.com","name":"Gal Samari"},
              "Project team":[{"id":"usr2","email":"sam@example.com","name":"Sam Epps"},{"id":"usr3","email":"sam2@example.com","name":"Sam Epps"}]}}]}
            """#
        let (checker, _) = try await checker([
            Self.denied, .http(200, body: page), .http(200, body: page), .http(200, body: page),
        ])
        let cells = try await checker.collaborators(for: ["gal samari", "x@example.com"])
        #expect(
            cells == [.object([("email", .string("gal@example.com"))]), .object([("email", .string("x@example.com"))])])
        await #expect(
            throws: AppError.usage(
                "2 collaborators are named \"Sam Epps\": sam@example.com, sam2@example.com; give one email",
                command: "add")
        ) { try await checker.collaborators(for: ["Sam Epps"]) }
        await #expect(throws: AppError.self) { try await checker.collaborators(for: ["Nobody"]) }
    }

    @Test func aLeadAndATeamGivenByNameAreFoundInOneRequest() async throws {
        let page = #"""
            {"records":[{"id":"recA","fields":{"Project lead":{"id":"usr1","email":"gal@example.com","name":"Gal Samari"},
              "Project team":[{"id":"usr2","email":"sam@example.com","name":"Sam Epps"}]}}]}
            """#
        let (checker, host) = try await checker([Self.denied, .http(200, body: page)])
        let write = try await checker.write(for: ProjectInput(lead: "gal samari", team: ["Sam Epps"]), notes: nil)
        #expect(
            write.fields(.template).serialized()
                == #"{"Project lead":{"email":"gal@example.com"},"Project team":[{"email":"sam@example.com"}]}"#)
        #expect(host.requests.count == 2, "the schema, then one request for both names")
    }

    @Test func clearedFieldsAreSentAsNullAndNotesMayHoldLineBreaks() async throws {
        let (checker, host) = try await checker([Self.denied])
        let write = try await checker.write(
            for: ProjectInput(
                due: CalendarDate("2026-12-04"), notes: .text("a\n\tb"), complete: false, cleared: [.kickoff, .team]),
            notes: "a\n\tb")
        #expect(
            write.fields(.template).serialized()
                == #"{"Due date":"2026-12-04","Notes":"a\n\tb","Complete":false,"Kickoff date":null,"Project team":null}"#
        )
        #expect(host.requests.count == 1, "the schema, and nothing to look up")
        await #expect(throws: AppError.self) {
            try await checker.write(for: ProjectInput(notes: .standardInput), notes: "bell\u{7}")
        }
    }

    static func formula(_ request: HTTPRequest) -> String? {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first {
            $0.name == "filterByFormula"
        }?.value
    }
}

@Suite(.timeLimit(.minutes(2)))
struct BatchWriteTests {
    static func changes(_ count: Int) -> [ProjectChange] {
        (0..<count).map {
            ProjectChange(id: "rec" + String(format: "%014d", $0), write: ProjectWrite([(.complete, .bool(true))]))
        }
    }

    @Test func updatesGoTenARequest() async throws {
        let ids = Self.changes(23).map(\.id)
        let answers = stride(from: 0, to: 23, by: 10).map { start in
            StubAnswer.http(
                200,
                body:
                    #"{"records":[\#(ids[start..<min(start + 10, 23)].map { Fixture.record(id: $0, name: "x") }.joined(separator: ","))]}"#
            )
        }
        let host = StubTransport.host(answers)
        var seen: [String] = []
        try await Fixture.client(host).updateProjects(Self.changes(23)) { seen += $0.map(\.id) }
        #expect(seen == ids)
        #expect(host.requests.map(\.method) == ["PATCH", "PATCH", "PATCH"])
        let first = try #require(try JSONSerialization.jsonObject(with: host.requests[0].body!) as? [String: Any])
        #expect((first["records"] as? [Any])?.count == 10)
        #expect(first["typecast"] == nil)
    }

    /// Import's creates are upserts merged on the key, so one sent twice after a lost answer updates, never adds.
    @Test func newProjectsGoAsUpsertsMergedOnTheKeyTenARequest() async throws {
        let writes = (0..<12).map { Fixture.write(name: "New \($0)") }
        let answer = { (count: Int) in
            StubAnswer.http(
                200,
                body:
                    #"{"records":[\#((0..<count).map { Fixture.record(id: "rec" + String(format: "%014d", $0), name: "New \($0)") }.joined(separator: ","))]}"#
            )
        }
        let host = StubTransport.host([.failure(.broken("connection reset")), answer(10), answer(2)])
        var written = 0
        try await Fixture.client(host).upsertProjects(writes, mergingOn: [.name, .due]) { written += $0.count }
        #expect(written == 12)
        #expect(host.requests.map(\.method) == ["PATCH", "PATCH", "PATCH"], "the lost batch is sent again")
        for request in host.requests {
            let body = try #require(try JSONSerialization.jsonObject(with: request.body!) as? [String: Any])
            let upsert = try #require(body["performUpsert"] as? [String: Any], "every batch is an upsert")
            #expect(upsert["fieldsToMergeOn"] as? [String] == ["Name", "Due date"])
            #expect(body["typecast"] == nil)
            #expect(((body["records"] as? [[String: Any]]) ?? []).allSatisfy { $0["id"] == nil })
        }
        #expect(host.requests[0].body == host.requests[1].body)
    }

    @Test func anUpdateWhoseAnswerWasLostIsSentAgainLikeARead() async throws {
        let answer = #"{"records":[\#(Fixture.record(id: "rec00000000000000", name: "x"))]}"#
        let host = StubTransport.host([
            .failure(.broken("connection reset")), .http(503, body: ""), .http(200, body: answer),
        ])
        var seen: [String] = []
        try await Fixture.client(host).updateProjects(Self.changes(1)) { seen += $0.map(\.id) }
        #expect(seen == ["rec00000000000000"])
        #expect(host.requests.count == 3)
    }

    @Test func aDeleteWhoseAnswerWasLostIsConfirmedByLooking() async throws {
        let ids = Self.changes(3).map(\.id)
        let host = StubTransport.host([
            .failure(.broken("connection reset")),
            // Looking: all three are gone, so the delete was applied.
            .http(200, body: #"{"records":[]}"#),
        ])
        var deleted: [String] = []
        try await Fixture.client(host).deleteProjects(ids) { deleted += $0 }
        #expect(deleted == ids)
        #expect(host.requests.map(\.method) == ["DELETE", "GET"])
        #expect(
            host.requests[0].url.query
                == "records%5B%5D=rec00000000000000&records%5B%5D=rec00000000000001&records%5B%5D=rec00000000000002")
    }

    @Test func onlyProjectsStillThereAreDeletedAgain() async throws {
        let ids = Self.changes(2).map(\.id)
        let host = StubTransport.host([
            .http(404, body: #"{"error":{"type":"MODEL_ID_NOT_FOUND","message":"Record not found"}}"#),
            .http(200, body: #"{"records":[\#(Fixture.record(id: ids[1], name: "x"))]}"#),
            .http(200, body: #"{"records":[{"id":"\#(ids[1])","deleted":true}]}"#),
        ])
        var deleted: [String] = []
        try await Fixture.client(host).deleteProjects(ids) { deleted += $0 }
        #expect(deleted == ids, "one was already gone, which counts as deleted")
        #expect(host.requests.map(\.method) == ["DELETE", "GET", "DELETE"])
        #expect(host.requests[2].url.query == "records%5B%5D=\(ids[1])")
    }

    @Test func plannedRequestsAreWhatADryRunPrints() {
        let host = StubTransport.host([])
        let client = Fixture.client(host)
        #expect(
            client.plannedUpdates(Self.changes(1)).map(\.text)
                == [
                    "PATCH /v0/appTESTbase000001/Design%20projects\n"
                        + #"{"records":[{"id":"rec00000000000000","fields":{"Complete":true}}]}"# + "\n"
                ])
        #expect(client.plannedDeletes(Self.changes(11).map(\.id)).count == 2)
        #expect(
            client.plannedDeletes(["recA"]).map(\.text)
                == ["DELETE /v0/appTESTbase000001/Design%20projects?records%5B%5D=recA\n"])
    }
}
