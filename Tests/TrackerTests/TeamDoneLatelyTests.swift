#if os(Linux)
    import Foundation
    import Testing

    @testable import FakeAirtable
    @_spi(Writing) @testable import TrackerAPI
    @testable import TrackerModel

    /// Done lately through the team's copy: the poller's answer travels in the copy's header, tagged with the refresh it
    /// goes with; a reader takes it instead of asking Airtable, and only when the tag is the header's own.
    @Suite(.timeLimit(.minutes(1)))
    struct TeamDoneLatelyTests {
        @Test func aReaderTakesThePollersAnswerOnlyWithItsRefreshsTag() async throws {
            let mirror = try BaseCopyTests.Mirror()
            let open = try #require(try await mirror.projects().records.first { !$0.isComplete })
            try await mirror.other(
                "PATCH", mirror.projectsPath, ["records": [["id": open.id, "fields": ["Complete": true]]]])
            let since = ISOInstant.text(Date().addingTimeInterval(-86_400))
            let formula = try #require(Formula.completedSince(since, fields: mirror.client.fields))
            let asked = try await mirror.copy.completedIDs(since: since, formula: formula)
            #expect(asked.contains(open.id))
            let header = await mirror.copy.doneHeader(refreshed: "1795000000.5")
            #expect(header.map(\.0) == ["done:" + since])

            func reader() -> BaseCopy {
                BaseCopy(
                    client: mirror.client,
                    tasks: TaskTable(route: FakeTasks.tableID, name: "Tasks", fields: .template),
                    tableIDs: [.projects: mirror.fake.options.tableID, .tasks: FakeTasks.tableID],
                    memory: BaseCopyTests.Memory())
            }
            var fields = Dictionary(uniqueKeysWithValues: header)
            fields["refreshed"] = "1795000000.5"
            let taking = reader()
            await taking.adoptState(fields)
            let before = mirror.requests
            #expect(try await taking.completedIDs(since: since, formula: formula) == asked)
            #expect(mirror.requests == before, "the poller's answer is taken, not asked again")

            // An answer left by another refresh (another day's poller, or one written before this header) is not.
            fields["refreshed"] = "1795000010.5"
            let asking = reader()
            await asking.adoptState(fields)
            #expect(try await asking.completedIDs(since: since, formula: formula) == asked)
            #expect(mirror.requests == before + 1, "an answer of another refresh is asked again")
        }
    }
#endif
