#if os(Linux)
    import Foundation
    import Testing

    @testable import FakeAirtable
    @_spi(Writing) @testable import TrackerAPI
    @testable import TrackerModel
    @_spi(Sending) @testable import TrackerNetwork
    import TrackerSystem

    /// A face's copy of the tables against the fake: read whole once, then only what changed (docs/contract.md "What
    /// changed, not the whole table"), what another client does seen, and what goes wrong survived.
    @Suite(.timeLimit(.minutes(2)))
    struct BaseCopyTests {
        final class Memory: WebhookMemory {
            let kept = Locked<String?>(nil)
            func recall() -> String? { kept.withLock { $0 } }
            func remember(_ id: String?) { kept.withLock { $0 = id } }
        }

        /// The fake, a client of it whose copy is `copy`, and another client's writes.
        final class Mirror: Sendable {
            let fake: FakeAirtable
            let transport: CurlTransport
            let client: ProjectAPIClient
            let copy: BaseCopy
            let memory = Memory()
            let clock = Locked(1000.0)

            init(projects: Int = 30, _ configure: (inout FakeAirtable.Options) -> Void = { _ in }) throws {
                var options = FakeAirtable.Options()
                options.tasks = FakeAirtable.generatedTasks(count: projects * 2, projects: projects)
                configure(&options)
                fake = FakeAirtable(options: options, records: FakeAirtable.generatedProjects(count: projects))
                try fake.start()
                transport = try #require(CurlTransport(), "libcurl could not be loaded")
                let clock = self.clock
                client = .of(fake, through: transport)
                copy = BaseCopy(
                    client: client,
                    tasks: TaskTable(route: FakeTasks.tableID, name: "Tasks", fields: .template),
                    tableIDs: [.projects: options.tableID, .tasks: FakeTasks.tableID], memory: memory,
                    localNow: { clock.withLock { $0 } })
            }

            deinit { fake.stop() }

            /// Another client's request: the status and the JSON object answered.
            @discardableResult
            func other(_ method: String, _ path: String, _ body: Any? = nil) async throws -> [String: Any] {
                var request = HTTPRequest(
                    url: URL(string: fake.endpoint + "/v0/\(fake.options.baseID)/" + path)!, method: method,
                    body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
                request.setValue("Bearer \(fake.options.token)", forHTTPHeaderField: "Authorization")
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                guard case .answered(let answer) = await transport.send(request, fresh: true, timeout: 10),
                    answer.status == 200
                else { throw CancellationError() }
                return (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
            }

            var projectsPath: String { fake.options.tableID }

            /// The requests the fake has answered so far.
            var requests: Int { fake.recordLog.count }

            /// One turn's projects, and the requests it cost.
            func projects() async throws -> (records: [Project], requests: Int) {
                let before = requests
                copy.beginTurn()
                let records = try await copy.projects()
                return (records, requests - before)
            }

            func names(_ projects: [Project]) -> Set<String> { Set(projects.compactMap(\.name)) }
        }

        @Test func aRefreshWithNothingChangedCostsOneRequestWithAWebhook() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            #expect(first.records.count == 30)
            #expect(await mirror.copy.watch == .webhook(id: try #require(mirror.memory.recall())))
            #expect(mirror.fake.webhookIDs.count == 1)
            let again = try await mirror.projects()
            #expect(again.requests == 1, "the payloads, nothing else")
            #expect(again.records.map(\.id) == first.records.map(\.id))
            #expect(mirror.fake.recordLog.last?.path.hasSuffix("/payloads") == true)
        }

        @Test func anotherClientsCreateChangeAndDeleteShowAtTheNextRefresh() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            let (changed, deleted) = (first.records[3], first.records[7])
            try await mirror.other("POST", mirror.projectsPath, ["fields": ["Name": "Made elsewhere"]])
            try await mirror.other(
                "PATCH", mirror.projectsPath,
                ["records": [["id": changed.id, "fields": ["Name": "Renamed elsewhere"]]]])
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(deleted.id)")
            let next = try await mirror.projects()
            #expect(next.requests == 2, "the payloads, then one listing of what changed")
            let names = mirror.names(next.records)
            #expect(names.contains("Made elsewhere"))
            #expect(names.contains("Renamed elsewhere"))
            #expect(!names.contains(changed.name ?? ""))
            #expect(!next.records.contains { $0.id == deleted.id }, "a deletion is applied")
            #expect(next.records.count == 30)
            // The cursor moved past what was read: the same news is not read again.
            let quiet = try await mirror.projects()
            #expect(quiet.requests == 1)
            #expect(quiet.records.map(\.id) == next.records.map(\.id))
        }

        /// Done lately: Airtable is asked once, and what turns complete after that the copy sees itself, a project made
        /// since the first read included.
        @Test func aProjectCompletedElsewhereIsDoneLatelyAtTheNextRefresh() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            let since = ISOInstant.text(Date().addingTimeInterval(-86_400))
            let formula = try #require(Formula.completedSince(since, fields: mirror.client.fields))
            let before = try await mirror.copy.completedIDs(since: since, formula: formula)
            let open = try #require(first.records.first { !$0.isComplete })
            let made = try await mirror.other("POST", mirror.projectsPath, ["fields": ["Name": "Made elsewhere"]])
            let madeID = try #require(made["id"] as? String)
            _ = try await mirror.projects()
            try await mirror.other(
                "PATCH", mirror.projectsPath,
                [
                    "records": [
                        ["id": open.id, "fields": ["Complete": true]], ["id": madeID, "fields": ["Complete": true]],
                    ]
                ])
            _ = try await mirror.projects()
            let after = try await mirror.copy.completedIDs(since: since, formula: formula)
            #expect(after == before.union([open.id, madeID]), "\(after.subtracting(before))")
        }

        @Test func theListingOfChangesReadsFromTheServersTimeLessTheMargin() async throws {
            let mirror = try Mirror()
            let before = Date().timeIntervalSince1970
            _ = try await mirror.projects()
            let after = Date().timeIntervalSince1970
            try await mirror.other(
                "PATCH", mirror.projectsPath, ["records": [["id": "rec00000000000001", "fields": ["Name": "Moved"]]]])
            _ = try await mirror.projects()
            let query = try #require(mirror.fake.recordLog.last { $0.query.contains("LAST_MODIFIED_TIME") }?.query)
            let decoded = query.removingPercentEncoding ?? query
            let quoted = try #require(decoded.split(separator: "'").dropFirst().first)
            let mark = try #require(ISOInstant.date(String(quoted))).timeIntervalSince1970
            // The whole read was sent between `before` and `after`: the mark is that instant less 60 s (the Date
            // header's whole seconds can only make it earlier). With no margin it would be after `after - 60`.
            #expect(mark <= after - 60)
            #expect(mark >= before - 60 - 2)
        }

        @Test func withoutTheWebhookScopeIdsAreListedEveryFiveMinutes() async throws {
            let mirror = try Mirror { $0.grantsWebhookScope = false }
            let first = try await mirror.projects()
            guard case .idListing(let reason)? = await mirror.copy.watch else {
                Issue.record("a webhook without the scope")
                return
            }
            #expect(reason.contains("webhook:manage"))
            let quiet = try await mirror.projects()
            #expect(quiet.requests == 1, "one listing of what changed")
            let gone = first.records[2]
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(gone.id)")
            try await mirror.other("POST", mirror.projectsPath, ["fields": ["Name": "Made elsewhere"]])
            let soon = try await mirror.projects()
            #expect(soon.requests == 1)
            #expect(mirror.names(soon.records).contains("Made elsewhere"))
            #expect(soon.records.contains { $0.id == gone.id }, "a deletion waits for the id listing")
            // Five minutes, as the contract says: not a second sooner.
            mirror.clock.withLock { $0 += 299 }
            #expect(try await mirror.projects().requests == 1, "no id listing within 5 minutes")
            mirror.clock.withLock { $0 += 1 }
            let later = try await mirror.projects()
            #expect(later.requests == 2, "the ids, then what changed")
            #expect(!later.records.contains { $0.id == gone.id })
            #expect(mirror.names(later.records).contains("Made elsewhere"))
            // The ids are listed again every 5 minutes, not once: the next deletion goes at the next listing.
            let quietAgain = try await mirror.projects()
            #expect(quietAgain.requests == 1, "the listing was noted: no second one within 5 minutes")
            let goneLater = first.records[4]
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(goneLater.id)")
            mirror.clock.withLock { $0 += 299 }
            #expect(try await mirror.projects().requests == 1, "no id listing within 5 minutes of the last")
            mirror.clock.withLock { $0 += 1 }
            let again = try await mirror.projects()
            #expect(again.requests == 2, "the ids again, then what changed")
            #expect(!again.records.contains { $0.id == goneLater.id })
        }

        @Test func aUserWhoDidNotCreateTheBaseListsIds() async throws {
            let mirror = try Mirror { $0.isBaseCreator = false }
            _ = try await mirror.projects()
            #expect(await mirror.copy.watch == .idListing(because: "only the base's creator may make its webhook"))
            #expect(mirror.fake.webhookIDs.isEmpty)
        }

        /// A base whose 10 webhooks are taken (none tracker's): Airtable's `TOO_MANY_WEBHOOKS_IN_BASE`, read by its
        /// type, leaves deletions to the id listing instead of failing the face.
        @Test func aBaseWithItsTenWebhooksTakenListsIds() async throws {
            let mirror = try Mirror()
            for _ in 0..<10 { mirror.fake.addForeignWebhook(watching: FakeTasks.tableID) }
            let first = try await mirror.projects()
            #expect(first.records.count == 30)
            #expect(
                await mirror.copy.watch == .idListing(because: "the base has as many webhooks as Airtable allows (10)"))
        }

        @Test func anEndpointWithoutWebhookRoutesListsIds() async throws {
            let mirror = try Mirror()
            mirror.fake.inject(.status(404, type: "NOT_FOUND"), onNextRequestEndingWith: "/webhooks")
            let first = try await mirror.projects()
            #expect(first.records.count == 30)
            guard case .idListing(let reason)? = await mirror.copy.watch else {
                Issue.record("a webhook where the endpoint has none")
                return
            }
            #expect(reason.contains("has no webhook routes"))
        }

        @Test func aWebhookGoneBehindTrackersBackIsMadeAgainAndTheTablesReadWholeOnce() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            let old = try #require(mirror.memory.recall())
            mirror.fake.expireWebhooks()
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(first.records[0].id)")
            let next = try await mirror.projects()
            let made = try #require(mirror.fake.webhookIDs.first)
            #expect(made != old)
            #expect(mirror.memory.recall() == made, "the new hook is remembered for the other processes")
            #expect(!next.records.contains { $0.id == first.records[0].id }, "nothing missed")
            let quiet = try await mirror.projects()
            #expect(quiet.requests == 1, "read whole once, then news again")
        }

        @Test func aCursorOlderThanThePayloadsKeptReadsTheTablesWhole() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(first.records[5].id)")
            for name in ["One", "Two"] {
                try await mirror.other("POST", mirror.projectsPath, ["fields": ["Name": name]])
            }
            mirror.fake.keepNewestPayloads(1)
            let next = try await mirror.projects()
            #expect(!next.records.contains { $0.id == first.records[5].id }, "the lost payload's deletion")
            #expect(next.records.count == 31)
            let whole = mirror.fake.recordLog.suffix(next.requests).filter {
                !$0.path.contains("/webhooks") && !$0.query.contains("filterByFormula") && !$0.query.contains("offset")
            }
            #expect(whole.count == 1, "one whole listing")
        }

        @Test func aRefreshThatFailsKeepsTheLastGoodState() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            try await mirror.other("POST", mirror.projectsPath, ["fields": ["Name": "Made elsewhere"]])
            mirror.fake.inject(.status(422, type: "INVALID_REQUEST_UNKNOWN"), onNextRequestEndingWith: "/payloads")
            mirror.copy.beginTurn()
            await #expect(throws: AppError.self) { try await mirror.copy.projects() }
            #expect(await mirror.copy.projectCopy?.records.map(\.id) == first.records.map(\.id))
            let next = try await mirror.projects()
            #expect(mirror.names(next.records).contains("Made elsewhere"), "nothing lost: the cursor stayed")
        }

        /// A refresh whose payloads were read but whose listing of changes failed moves nothing: the next one reads the
        /// same news again, so the deletion and the rename are not lost (before, the cursor had moved on).
        @Test func aDeletionReadByARefreshThatFailsIsReadAgainByTheNext() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            let (changed, deleted) = (first.records[3], first.records[7])
            try await mirror.other(
                "PATCH", mirror.projectsPath,
                ["records": [["id": changed.id, "fields": ["Name": "Renamed elsewhere"]]]])
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(deleted.id)")
            // The payloads answer; the listing of what changed fails (as after the retry budget).
            mirror.fake.inject(.status(422, type: "INVALID_REQUEST_UNKNOWN"), onRequest: 2)
            mirror.copy.beginTurn()
            await #expect(throws: AppError.self) { try await mirror.copy.projects() }
            #expect(await mirror.copy.projectCopy?.contains(deleted.id) == true, "the failed refresh applied nothing")
            let next = try await mirror.projects()
            #expect(!next.records.contains { $0.id == deleted.id }, "the deletion, read again")
            #expect(mirror.names(next.records).contains("Renamed elsewhere"))
            #expect(next.records.count == 29)
        }

        /// A week with nobody polling: Airtable disables the hook, which then records nothing and answers nothing new.
        /// The copy knows its expiry passed, finds or makes another and reads the tables whole: nothing missed.
        @Test func aHookNobodyPolledForAWeekIsReplacedAndNothingIsMissed() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            let old = try #require(mirror.memory.recall())
            mirror.fake.letTimePass(days: 8)
            try await mirror.other(
                "PATCH", mirror.projectsPath,
                ["records": [["id": first.records[2].id, "fields": ["Name": "Renamed during the week"]]]])
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(first.records[4].id)")
            let next = try await mirror.projects()
            #expect(mirror.names(next.records).contains("Renamed during the week"))
            #expect(!next.records.contains { $0.id == first.records[4].id })
            let made = try #require(mirror.memory.recall())
            #expect(made != old, "a new hook, remembered for the others")
            #expect(mirror.fake.webhookSecondsLeft[made].map { $0 > 6 * 86400 } == true)
            let quiet = try await mirror.projects()
            #expect(quiet.requests == 1, "news again from the new hook")
        }

        /// A process started after such a week does not adopt the remembered, disabled hook.
        @Test func aProcessStartedAfterAWeekAdoptsNoDisabledHook() async throws {
            let mirror = try Mirror()
            _ = try await mirror.projects()
            let old = try #require(mirror.memory.recall())
            mirror.fake.letTimePass(days: 8)
            let later = BaseCopy(
                client: mirror.client, tasks: nil, tableIDs: [.projects: mirror.fake.options.tableID],
                memory: mirror.memory)
            later.beginTurn()
            let records = try await later.projects()
            #expect(await later.watch != .webhook(id: old))
            #expect(mirror.memory.recall() != old, "the disabled hook is forgotten")
            try await mirror.other(
                "PATCH", mirror.projectsPath, ["records": [["id": records[1].id, "fields": ["Name": "Seen later"]]]])
            later.beginTurn()
            #expect(try await later.projects().contains { $0.name == "Seen later" })
        }

        /// A remembered hook that watches only another table is not tracker's kind: forgotten, and one made.
        @Test func aRememberedHookOfAnotherKindIsForgotten() async throws {
            let mirror = try Mirror()
            let foreign = mirror.fake.addForeignWebhook(watching: FakeTasks.tableID)
            mirror.memory.remember(foreign)
            let first = try await mirror.projects()
            #expect(await mirror.copy.watch != .webhook(id: foreign))
            #expect(mirror.memory.recall() != foreign)
            try await mirror.other(
                "PATCH", mirror.projectsPath, ["records": [["id": first.records[0].id, "fields": ["Name": "Seen"]]]])
            #expect(mirror.names(try await mirror.projects().records).contains("Seen"))
        }

        /// A payload that says the hook broke (`"error": true`): the hook is not trusted again, the tables are read
        /// whole and another hook is made.
        @Test func aHookWhosePayloadsSayItBrokeIsReplaced() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            let old = try #require(mirror.memory.recall())
            mirror.fake.breakWebhooks()
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(first.records[6].id)")
            let next = try await mirror.projects()
            #expect(!next.records.contains { $0.id == first.records[6].id })
            let made = try #require(mirror.memory.recall())
            #expect(made != old)
            #expect(await mirror.copy.watch == .webhook(id: made))
        }

        /// More than one page of payloads (50 a page): every page is read, and a deletion on the second is applied.
        @Test func everyPageOfPayloadsIsRead() async throws {
            let mirror = try Mirror()
            let first = try await mirror.projects()
            for index in 0..<55 {
                try await mirror.other(
                    "PATCH", mirror.projectsPath,
                    ["records": [["id": first.records[1].id, "fields": ["Name": "Edit \(index)"]]]])
            }
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(first.records[9].id)")
            let next = try await mirror.projects()
            #expect(!next.records.contains { $0.id == first.records[9].id }, "the deletion on the second page")
            #expect(mirror.names(next.records).contains("Edit 54"))
        }

        /// An answer that says there is more without moving the cursor is read once, not polled for ever; one whose
        /// cursor is no whole number (`1e300`) is malformed, not a trap.
        @Test func payloadAnswersThatCannotBeTrustedEndTheReading() async throws {
            let mirror = try Mirror()
            _ = try await mirror.projects()
            let cursor = await mirror.copy.cursor
            mirror.fake.injectOnEveryRequest(
                .raw(200, body: #"{"payloads":[{}],"cursor":\#(cursor),"mightHaveMore":true,"payloadFormat":"v0"}"#))
            let stuck = try await mirror.projects()
            #expect(stuck.requests == 1)
            mirror.fake.injectOnEveryRequest(
                .raw(200, body: #"{"payloads":[],"cursor":1e300,"mightHaveMore":false,"payloadFormat":"v0"}"#))
            mirror.copy.beginTurn()
            await #expect(throws: AppError.self) { try await mirror.copy.projects() }
            mirror.fake.injectOnEveryRequest(nil)
            #expect(await mirror.copy.cursor == cursor)
        }

        @Test func theHookIsRefreshedBeforeItsSevenDaysRunOut() async throws {
            let mirror = try Mirror()
            _ = try await mirror.projects()
            _ = try await mirror.projects()
            #expect(!mirror.fake.recordLog.contains { $0.path.hasSuffix("/refresh") }, "fresh: left alone")
            // Two days on, by the server's clock: fewer than six of its seven days are left.
            let now = try #require(mirror.client.serverClock.now())
            mirror.client.serverClock.heard(serverSeconds: now + 2 * 86_400)
            _ = try await mirror.projects()
            #expect(mirror.fake.recordLog.filter { $0.path.hasSuffix("/refresh") }.count == 1)
            _ = try await mirror.projects()
            #expect(mirror.fake.recordLog.filter { $0.path.hasSuffix("/refresh") }.count == 1, "once, not every turn")
        }

        @Test func tasksAreKeptBesideProjectsOnOneWebhook() async throws {
            let mirror = try Mirror()
            mirror.copy.beginTurn()
            let tasks = try await mirror.copy.tasks(where: { _ in true }, limit: nil, size: 100).flatMap { $0 }
            #expect(tasks.count == 60)
            _ = try await mirror.copy.projects()
            let done = try #require(tasks.first { !$0.isComplete })
            try await mirror.other(
                "PATCH", FakeTasks.tableID, ["records": [["id": done.id, "fields": ["Completed": true]]]])
            let before = mirror.requests
            mirror.copy.beginTurn()
            let next = try await mirror.copy.tasks(where: { _ in true }, limit: nil, size: 100).flatMap { $0 }
            _ = try await mirror.copy.projects()
            #expect(mirror.requests - before == 2, "the payloads and the tasks' changes; projects untouched")
            #expect(next.first { $0.id == done.id }?.isComplete == true)
        }
    }
#endif
