#if os(Linux)
    import Foundation
    import Testing

    @testable import FakeAirtable
    @testable import TrackerAPI
    @testable import TrackerModel
    @testable import TrackerNetwork
    @testable import TrackerOperations
    @testable import TrackerSystem

    /// The session as the only way to write, and the reader chosen once: a face's sessions over a running fake, with
    /// the copies a face that stays keeps.
    @Suite(.serialized) struct SessionRulesTests {
        /// A face's workspace (the copies `mcp` keeps) over `fake`, paced by nothing, remembering nothing.
        static func workspace(_ fake: FakeAirtable, copies: BaseCopies? = BaseCopies()) -> Workspace {
            var surface = Workspace.Surface(
                environment: [
                    "AIRTABLE_TOKEN": fake.options.token, "AIRTABLE_BASE_ID": fake.options.baseID,
                    "AIRTABLE_TABLE": fake.options.table, "AIRTABLE_ENDPOINT_URL": fake.endpoint,
                    "HOME": "/nonexistent",
                ],
                currentDirectory: "/nonexistent", today: CalendarDate("2026-11-28")!,
                timeZone: Zone(identifier: "UTC")!,
                now: Date.init, network: NetworkHelper.Environment(),
                makeTransport: { _ in CurlTransport()! }, prepareRuntimeDirectory: { .none },
                coordinate: { _, directory, _ in MachineCoordination(directory: directory) }, userAgent: "tracker/test")
            surface.makePacer = { _, _ in UnlimitedPacer() }
            surface.copies = copies
            // The journal kept in a directory of the test's: its before-values come from the copy, no request.
            surface.state = CacheDirectory(path: NSTemporaryDirectory() + "tracker-rules-\(UUID().uuidString)")
            return Workspace(surface)
        }

        static func started(projects: Int = 20) throws -> FakeAirtable {
            let fake = FakeAirtable(
                options: FakeAirtable.Options(), records: FakeAirtable.generatedProjects(count: projects))
            try fake.start()
            return fake
        }

        /// A write's answer is in the face's copy at once: the next listing shows the new project, and no request reads
        /// it (broken by a `Creates` that does not tell the reader: the listing misses it).
        @Test func aProjectAddedThroughTheSessionIsInTheFacesCopyAtOnce() async throws {
            let fake = try Self.started()
            defer { fake.stop() }
            let opener = Self.workspace(fake).opener()
            #expect(try await opener.perform(List()).projects.count == 20)
            let read = fake.recordLog.count
            let add = try Add(
                ScannedArguments(values: ["--name": ["Written here"], "--due": ["2026-12-01"]]),
                today: CalendarDate("2026-11-28")!)
            guard case .done(let creation) = try await opener.perform(add) else {
                Issue.record("a dry run was not asked for")
                return
            }
            let listing = try await opener.perform(List())
            #expect(listing.projects.contains { $0.id == creation.record.id })
            #expect(listing.projects.count == 21)
            let after = fake.recordLog.dropFirst(read)
            #expect(
                after.map(\.method) == ["POST"], "the create alone went out: \(after.map { "\($0.method) \($0.path)" })"
            )
        }

        /// Deleted through the session: gone from the copy at once (broken by `Writes` not telling the reader).
        @Test func aProjectDeletedThroughTheSessionLeavesTheFacesCopyAtOnce() async throws {
            let fake = try Self.started()
            defer { fake.stop() }
            let opener = Self.workspace(fake).opener()
            let first = try await opener.perform(List()).projects
            let gone = try #require(first.first)
            let delete = Delete(targets: [gone.id], confirmed: true)
            _ = try await opener.perform(delete)
            let listing = try await opener.perform(List())
            #expect(!listing.projects.contains { $0.id == gone.id } && listing.projects.count == 19)
        }

        /// The reader is chosen once, when the session opens: with the face's copies, listings are answered from the
        /// copy (no request after the first whole read); without, each is Airtable's.
        @Test func theReaderIsTheFacesCopyWhenItKeepsOneAndAirtableOtherwise() async throws {
            let fake = try Self.started()
            defer { fake.stop() }
            let kept = Self.workspace(fake).opener()
            let session = try await kept.session(.schemaFirst)
            #expect(session.reader is CopyReader)
            _ = try await kept.perform(List())
            let read = fake.recordLog.count
            for _ in 0..<3 { _ = try await kept.perform(List()) }
            #expect(fake.recordLog.count == read, "answered by the copy")

            let oneShot = Self.workspace(fake, copies: nil).opener()
            #expect(try await oneShot.session(.schemaFirst).reader is ProjectAPIClient)
            let before = fake.recordLog.count
            for _ in 0..<2 { _ = try await oneShot.perform(List()) }
            #expect(fake.recordLog.count == before + 2, "each listing is Airtable's")
        }

        /// The project's Swift sources (paths under Sources/, sorted) whose text `matches`.
        static func sources(where matches: (String) -> Bool = { _ in true }) throws -> [String] {
            let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Sources")
            let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
                .filter { $0.hasSuffix(".swift") }
            return try files.filter {
                matches(try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8))
            }.sorted()
        }

        /// Only the session's own write routes see the client's writes: no other source file imports them. An
        /// operation that calls `session.client.updateProjects` then does not compile (broken by one more import).
        @Test func onlyTheSessionsWriteRoutesSeeTheClientsWrites() throws {
            #expect(try Self.sources().count > 100)
            #expect(
                try Self.sources { $0.contains("@_spi(Writing) import") } == [
                    "TrackerOperations/Session/Session+Writing.swift"
                ])
        }

        /// Nothing outside the network layer and the client can build a request or send one: `HTTPRequest`'s
        /// initialiser and `NetworkHelper`'s `send` and `download` are `@_spi(Sending)`, so any other file that tries
        /// does not compile; the client's files are the only ones that import them (broken by one more importer,
        /// which is what a way round the write gate would need).
        @Test func onlyTheClientBuildsAndSendsRequests() throws {
            let importing = try Self.sources { $0.contains("@_spi(Sending) import") }
            #expect(!importing.isEmpty)
            #expect(importing.filter { !$0.hasPrefix("TrackerAPI/") } == [])
        }

        /// The session is read in few places: at most 12 files extend it (the layout's bound; broken by one more).
        @Test func theSessionIsExtendedInTwelveFilesAtMost() throws {
            let extending = try Self.sources { text in
                text.split(separator: "\n").contains {
                    $0.hasPrefix("extension Session {") || $0.hasPrefix("extension Session:")
                }
            }
            #expect(extending.count >= 2)
            #expect(extending.count <= 12, "\(extending.sorted())")
        }

        /// The webhook writes (make a hook, make serve's doorbell, refresh one) are the write gate's one named
        /// exception: outside the API, only the doorbell's keeper sees them (broken by one more importer).
        @Test func onlyTheDoorbellKeeperSeesTheWebhookWrites() throws {
            #expect(try Self.sources { $0.contains("@_spi(Webhooks) import") } == ["TrackerServe/DoorbellKeeper.swift"])
        }

        /// An operation cannot put another client, reader or layout in its session's place: they are set in
        /// Session.swift alone (an operation that assigns `session.reader` then does not compile). Broken by any of
        /// them declared `package var`.
        @Test func theSessionsPartsAreSetInItsOwnFileAlone() throws {
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Sources/TrackerOperations/Session/Session.swift")
            let text = try String(contentsOf: file, encoding: .utf8)
            for part in ["configuration", "client", "reader", "knowledge", "layout", "inFlight"] {
                #expect(text.contains("package private(set) var \(part):"), "Session.\(part) is settable")
            }
        }
    }
#endif
