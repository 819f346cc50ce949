import Foundation
import Testing
@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerOperations
@testable import tracker

/// The operations every face calls, run in sessions over a stub Airtable and checked by their typed outcomes; and the
/// rules the session keeps for every face (nothing shown before the layout is confirmed, a create sent once).
@Suite struct OperationTests {
    /// The template's schema with its Notes field renamed: what a base that was customised after tracker assumed its
    /// fields answers to the schema read beside the first request.
    static let renamedNotes = Fixture.templateSchema.replacingOccurrences(of: "\"Notes\"", with: "\"Brief\"")

    /// Sessions as the command line opens them, over a stub host answering `answers` (and `schema` for the schema).
    static func opener(
        _ answers: [StubAnswer], schema: StubAnswer = .http(200, body: Fixture.templateSchema),
        state: CacheDirectory? = nil, schemaReads: Int = 2, routes: [String: StubAnswer] = [:],
        configure: (inout Context) -> Void = { _ in }
    ) -> (SessionOpener, StubTransport.Host) {
        let (workspace, _, host) = Self.workspace(
            answers, schema: schema, state: state, schemaReads: schemaReads, routes: routes, configure: configure)
        return (workspace.opener(), host)
    }

    /// The command line's workspace over a stub host, as `opener` makes it, and the context it was made of.
    static func workspace(
        _ answers: [StubAnswer], schema: StubAnswer = .http(200, body: Fixture.templateSchema),
        state: CacheDirectory? = nil, schemaReads: Int = 2, routes: [String: StubAnswer] = [:],
        configure: (inout Context) -> Void = { _ in }
    ) -> (Workspace, Context, StubTransport.Host) {
        // A second run (the schema first) reads the schema again: nothing is remembered here.
        let host = StubTransport.host(answers, meta: Array(repeating: schema, count: schemaReads), routes: routes)
        var context = Context(
            environment: [
                "AIRTABLE_TOKEN": Fixture.token, "AIRTABLE_BASE_ID": "appTESTbase000001",
                "AIRTABLE_TABLE": "Design projects", "AIRTABLE_ENDPOINT_URL": "https://\(host.name)",
                "HOME": "/nonexistent",
            ],
            output: Output(standardOutput: { _ in }, standardError: { _ in }, isStdoutTerminal: false),
            currentDirectory: "/nonexistent", now: { Date(timeIntervalSince1970: 1_795_000_000) },
            timeZone: Zone(identifier: "UTC")!, makeTransport: { _ in StubTransport() },
            makePacer: { _, _ in UnlimitedPacer() }, network: TestClock().environment(), stateDirectory: state)
        // Each request is scripted here: the journal's reads are tested on their own (JournalOperationTests).
        context.journals = false
        configure(&context)
        let today = CalendarDate(Date(timeIntervalSince1970: 1_795_000_000), in: Zone(identifier: "UTC")!)
        return (context.workspace(for: Invocation(command: Help()), today: today), context, host)
    }

    /// One workspace serves every call of a face: each call's sessions speak with the token of the person who asks and
    /// see the call's day, while the workspace's own configuration (and its copies' token) stays the face's (broken by
    /// a scope whose person is kept by the workspace, or a copy that speaks as the person).
    @Test func oneWorkspaceServesEachCallsPersonAndDay() throws {
        let (workspace, _, _) = Self.workspace([])
        let person = "patFAKEperson0000.fakefakefakefakefakefakefakefakefakefakefakefakefakefakefakefake"
        let tomorrow = try #require(CalendarDate(year: 2026, month: 11, day: 30))
        let scope = Workspace.Scope(today: tomorrow, personToken: person)
        let asked = try workspace.configuration(for: scope)
        #expect(asked.token == person)
        #expect(try workspace.loadConfiguration().token == Fixture.token)
        let surroundings = workspace.surroundings(asked, scope: scope)
        #expect(surroundings.today == tomorrow)
        #expect(surroundings.copyToken == Fixture.token)
        #expect(try workspace.configuration(for: Workspace.Scope()).token == Fixture.token)
        #expect(workspace.surroundings(asked).copyToken == nil)
    }

    @Test func aListingHandsOnEveryPageAndTalliesWhatItRead() async throws {
        let (opener, host) = Self.opener([
            .http(200, body: Fixture.page(["a", "b"], offset: "o1")), .http(200, body: Fixture.page(["c"], first: 2)),
        ])
        let listing = try await opener.perform(List())
        #expect(listing.projects.map(\.name) == ["a", "b", "c"])
        #expect(listing.tally == [.open: 3] && !listing.moreMatch)
        #expect(listing.layout?.table?.name == "Design projects")
        #expect(host.requests.filter { !$0.url.path.hasPrefix("/v0/meta/") }.count == 2)
    }

    /// Cold, the listing goes out beside the schema read; when the schema says the base's fields are not the ones it
    /// assumed, no page of that first read is handed on, and the listing runs once more with the schema first.
    @Test func nothingIsHandedOnBeforeTheSchemaConfirmsTheLayout() async throws {
        let (opener, _) = Self.opener(
            [.http(200, body: Fixture.page(["first read"])), .http(200, body: Fixture.page(["second read"]))],
            schema: .http(200, body: Self.renamedNotes))
        let list = List()
        var pages: [[String?]] = []
        let listing = try await opener.perform(list) { session in
            try await list.run(in: session) { event in
                if case .page(let page) = event { pages.append(page.map(\.name)) }
            }
        }
        #expect(pages == [["second read"]])
        #expect(listing.layout?.fields[.notes] == nil)
    }

    /// A create that may have been sent is never sent again: when Airtable refuses it and the schema read beside it
    /// then contradicts what was assumed, the session does not run the create a second time.
    @Test func aCreateIsSentAtMostOnceEvenWhenTheSchemaContradictsIt() async throws {
        let refused = StubAnswer.http(
            422, body: #"{"error":{"type":"INVALID_VALUE_FOR_COLUMN","message":"Field \"Name\" cannot accept it"}}"#)
        let (opener, host) = Self.opener(
            [refused, .http(200, body: Fixture.record(id: "recSECONDCREATE01", name: "X"))],
            schema: .http(200, body: Self.renamedNotes))
        let add = try Add(
            ScannedArguments(values: ["--name": ["X"], "--due": ["2026-12-01"]]),
            today: CalendarDate(Date(timeIntervalSince1970: 1_795_000_000), in: Zone(identifier: "UTC")!))
        await #expect(throws: AppError.self) { try await opener.perform(add) }
        #expect(host.requests.filter { $0.method == "POST" }.count == 1)
    }

    @Test func anAddIfAbsentFindsTheProjectAndWritesNothing() async throws {
        let (opener, host) = Self.opener([.http(200, body: Fixture.page(["X"]))])
        var add = try Add(
            ScannedArguments(values: ["--name": ["X"], "--due": ["2026-12-01"]]),
            today: CalendarDate(Date(timeIntervalSince1970: 1_795_000_000), in: Zone(identifier: "UTC")!))
        add.ifAbsent = true
        guard case .done(let creation) = try await opener.perform(add) else {
            Issue.record("a dry run was not asked for")
            return
        }
        #expect(!creation.isNew && creation.record.name == "X")
        #expect(host.requests.allSatisfy { $0.method == "GET" })
    }

    /// done: every name found before anything is written; the one already complete is handed on, not written.
    @Test func markingDoneWritesOnlyWhatChangesAndHandsOnEveryProject() async throws {
        let complete =
            #"{"id":"rec00000000000000","createdTime":"2026-11-21T10:00:00.000Z","fields":{"Name":"a","Complete":true}}"#
        let open = Fixture.record(id: "rec00000000000001", name: "b")
        let updated =
            #"{"records":[{"id":"rec00000000000001","createdTime":"2026-11-21T10:00:00.000Z","fields":{"Name":"b","Complete":true}}]}"#
        let (opener, host) = Self.opener([
            .http(200, body: #"{"records":[\#(complete),\#(open)]}"#), .http(200, body: updated),
        ])
        let done = SetCompletion(complete: true, targets: ["a", "b"])
        var handedOn: [String] = []
        let outcome = try await opener.perform(done) { session in
            try await done.run(in: session) { handedOn += $0.compactMap(\.name) }
        }
        #expect(outcome == .written(count: 2))
        #expect(handedOn == ["a", "b"])
        let patch = try #require(host.requests.first { $0.method == "PATCH" })
        #expect(String(decoding: patch.body ?? Data(), as: UTF8.self).contains("rec00000000000001"))
        #expect(!String(decoding: patch.body ?? Data(), as: UTF8.self).contains("rec00000000000000"))
    }

    /// The show a face reads: the record, and what the board's card and the command line's view are drawn from.
    @Test func showReadsOneProjectAsADetailEveryFaceDraws() async throws {
        let (opener, _) = Self.opener([.http(200, body: Fixture.page(["Logo refresh"]))])
        let detail = try await opener.perform(Show(target: "Logo refresh"))
        #expect(detail.project.name == "Logo refresh")
        #expect(detail.address?.hasPrefix("https://airtable.com/appTESTbase000001/tblDESIGNdesign01/") == true)
        let view = detail.fieldsView(
            today: CalendarDate(dayNumber: 0), style: Style(isEnabled: false), width: 80,
            timeZone: Zone(identifier: "UTC")!)
        #expect(view.hasPrefix("Logo refresh\n"))
        #expect(detail.jsonText(today: CalendarDate(dayNumber: 0), comments: false).hasPrefix(#"{"id":"rec"#))
    }

    /// A delete off a terminal without `--yes` asks nobody and deletes nothing: the face could not ask.
    @Test func aDeleteThatCannotAskDeletesNothing() async throws {
        let (opener, host) = Self.opener([.http(200, body: Fixture.page(["a"]))])
        await #expect(throws: AppError.self) { try await opener.perform(Delete(targets: ["a"])) }
        #expect(host.requests.allSatisfy { $0.method == "GET" })
    }

    /// With `--yes` and ids alone the delete is the one request; each batch is handed on as Airtable confirms it.
    @Test func aDeleteByIDsIsOneRequestAndHandsOnWhatWasDeleted() async throws {
        let (opener, host) = Self.opener([
            .http(200, body: #"{"records":[{"id":"rec00000000000001","deleted":true}]}"#)
        ])
        let delete = Delete(targets: ["rec00000000000001"], confirmed: true)
        var handedOn: [String] = []
        let outcome = try await opener.perform(delete) { session in
            try await delete.run(in: session) { batch in
                if case .ids(let ids) = batch { handedOn += ids }
            }
        }
        #expect(outcome == .deleted(count: 1) && handedOn == ["rec00000000000001"])
        #expect(host.requests.filter { !$0.url.path.hasPrefix("/v0/meta/") }.map(\.method) == ["DELETE"])
    }

    /// An update by id is the one request; the outcome is the project as Airtable now has it and what was written.
    @Test func anUpdateByIDIsOneRequestAndSaysWhatItWrote() async throws {
        let (opener, host) = Self.opener([
            .http(
                200, body: #"{"records":[\#(Fixture.record(id: "rec00000000000001", name: "a", due: "2026-12-24"))]}"#)
        ])
        let update = try Update(
            ScannedArguments(values: ["--due": ["2026-12-24"]], positionals: ["rec00000000000001"]),
            today: CalendarDate(Date(timeIntervalSince1970: 1_795_000_000), in: Zone(identifier: "UTC")!))
        guard case .updated(let project?, let write) = try await opener.perform(update) else {
            Issue.record("no project came back")
            return
        }
        #expect(project.due?.description == "2026-12-24")
        #expect(write.cells.count == 1)
        #expect(host.requests.filter { !$0.url.path.hasPrefix("/v0/meta/") }.map(\.method) == ["PATCH"])
    }
}
