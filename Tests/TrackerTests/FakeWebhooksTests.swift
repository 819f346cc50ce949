#if os(Linux)
    import Foundation
    import Testing

    @testable import FakeAirtable
    @_spi(Sending) @testable import TrackerNetwork

    /// The fake serves webhooks as docs/airtable-webhooks.md says Airtable does, for a client that polls: create, list,
    /// refresh, delete, payloads read from any cursor, and the refusals.
    @Suite(.timeLimit(.minutes(2)))
    struct FakeWebhooksTests {
        final class Base: Sendable {
            let fake: FakeAirtable
            let transport: CurlTransport

            init(_ configure: (inout FakeAirtable.Options) -> Void = { _ in }) throws {
                var options = FakeAirtable.Options()
                configure(&options)
                fake = FakeAirtable(options: options, records: FakeAirtable.recordedProjects)
                try fake.start()
                transport = try #require(CurlTransport(), "libcurl could not be loaded")
            }

            deinit { fake.stop() }

            /// The status and JSON object of one request.
            func call(_ method: String, _ path: String, _ body: Any? = nil) async throws -> (Int, [String: Any]) {
                var request = HTTPRequest(
                    url: URL(string: fake.endpoint + path)!, method: method,
                    body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
                request.setValue("Bearer \(fake.options.token)", forHTTPHeaderField: "Authorization")
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                guard case .answered(let answer) = await transport.send(request, fresh: true, timeout: 10) else {
                    throw CancellationError()
                }
                return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:])
            }

            var hooks: String { "/v0/bases/\(fake.options.baseID)/webhooks" }
            var table: String { "/v0/\(fake.options.baseID)/\(fake.options.tableID)" }
            nonisolated(unsafe) static let specification: [String: Any] = [
                "specification": [
                    "options": ["filters": ["dataTypes": ["tableData"], "recordChangeScope": "tblFAKEdesign0001"]]
                ]
            ]
        }

        static func ids(_ payloads: [[String: Any]], _ key: String) -> [String] {
            payloads.flatMap { payload -> [String] in
                let tables = payload["changedTablesById"] as? [String: [String: Any]] ?? [:]
                return tables.values.flatMap { table -> [String] in
                    if key == "destroyedRecordIds" { return table[key] as? [String] ?? [] }
                    return (table[key] as? [String: Any]).map { Array($0.keys) } ?? []
                }
            }
        }

        @Test func aHookReportsCreatedChangedAndDestroyedRecordsFromEachReadersCursor() async throws {
            let base = try Base()
            let (status, made) = try await base.call("POST", base.hooks, Base.specification)
            #expect(status == 200)
            let id = try #require(made["id"] as? String)
            #expect(id.hasPrefix("ach") && made["expirationTime"] is String && made["macSecretBase64"] is String)
            // A create, a change and a delete by any client.
            let (_, created) = try await base.call("POST", base.table, ["fields": ["Name": "New one"]])
            let newID = try #require(created["id"] as? String)
            _ = try await base.call("PATCH", base.table + "/recPsjO1tkEyBCF7y", ["fields": ["Notes": "changed"]])
            _ = try await base.call("DELETE", base.table + "/rec3g0Xxmw2rw3scs")
            let (_, first) = try await base.call("GET", base.hooks + "/\(id)/payloads?cursor=1")
            let payloads = try #require(first["payloads"] as? [[String: Any]])
            #expect(payloads.count == 3)
            #expect(first["cursor"] as? Int == 4 && first["mightHaveMore"] as? Bool == false)
            #expect(first["payloadFormat"] as? String == "v0")
            #expect(Self.ids(payloads, "createdRecordsById") == [newID])
            #expect(Self.ids(payloads, "changedRecordsById") == ["recPsjO1tkEyBCF7y"])
            #expect(Self.ids(payloads, "destroyedRecordIds") == ["rec3g0Xxmw2rw3scs"])
            // Reading consumes nothing: another reader from cursor 2, one at a time.
            let (_, second) = try await base.call("GET", base.hooks + "/\(id)/payloads?cursor=2&limit=1")
            #expect((second["payloads"] as? [Any])?.count == 1)
            #expect(second["cursor"] as? Int == 3 && second["mightHaveMore"] as? Bool == true)
            // Nothing new: an empty page at the same cursor.
            let (_, none) = try await base.call("GET", base.hooks + "/\(id)/payloads?cursor=4")
            #expect((none["payloads"] as? [Any])?.isEmpty == true && none["cursor"] as? Int == 4)
            // The listing names it with its next cursor.
            let (_, listed) = try await base.call("GET", base.hooks)
            let hook = try #require((listed["webhooks"] as? [[String: Any]])?.first)
            #expect(hook["id"] as? String == id && hook["cursorForNextPayload"] as? Int == 4)
            #expect(hook["isHookEnabled"] as? Bool == true)
        }

        @Test func refreshDeleteExpiryAndOldCursors() async throws {
            let base = try Base()
            let (_, made) = try await base.call("POST", base.hooks, Base.specification)
            let id = try #require(made["id"] as? String)
            let (refreshed, answer) = try await base.call("POST", base.hooks + "/\(id)/refresh")
            #expect(refreshed == 200 && answer["expirationTime"] is String)
            for name in ["A", "B", "C"] { _ = try await base.call("POST", base.table, ["fields": ["Name": name]]) }
            // Payloads past their week: a cursor older than what is kept answers from the oldest kept.
            base.fake.keepNewestPayloads(1)
            let (_, old) = try await base.call("GET", base.hooks + "/\(id)/payloads?cursor=1")
            #expect((old["payloads"] as? [Any])?.count == 1 && old["cursor"] as? Int == 4)
            // A hook that expired, or was deleted behind the client's back, is gone: 404 for its payloads.
            base.fake.expireWebhooks()
            let (gone, _) = try await base.call("GET", base.hooks + "/\(id)/payloads?cursor=1")
            #expect(gone == 404)
            let (_, again) = try await base.call("POST", base.hooks, Base.specification)
            let other = try #require(again["id"] as? String)
            let (deleted, _) = try await base.call("DELETE", base.hooks + "/\(other)")
            #expect(deleted == 200 && base.fake.webhookIDs.isEmpty)
            // More than 50 payloads a call is refused; ten hooks a base at most.
            let (tooMany, _) = try await base.call("GET", base.hooks + "/\(other)/payloads?limit=51")
            #expect(tooMany == 422 || tooMany == 404)
            for _ in 0..<10 { _ = try await base.call("POST", base.hooks, Base.specification) }
            let (eleventh, refusal) = try await base.call("POST", base.hooks, Base.specification)
            #expect(eleventh == 422)
            #expect((refusal["error"] as? [String: Any])?["type"] as? String == "TOO_MANY_WEBHOOKS_IN_BASE")
        }

        @Test func withoutTheScopeOrTheCreatorsPermissionTheRoutesAre403() async throws {
            let scopeless = try Base { $0.grantsWebhookScope = false }
            for (method, path) in [("POST", scopeless.hooks), ("GET", scopeless.hooks)] {
                let (status, body) = try await scopeless.call(method, path, method == "POST" ? Base.specification : nil)
                #expect(status == 403)
                #expect(
                    (body["error"] as? [String: Any])?["type"] as? String == "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND")
            }
            let editor = try Base { $0.isBaseCreator = false }
            let (refused, _) = try await editor.call("POST", editor.hooks, Base.specification)
            #expect(refused == 403)
            let (listed, _) = try await editor.call("GET", editor.hooks)
            #expect(listed == 200, "listing needs the scope, not the creator's permission")
        }

        /// As the reference pages say: a hook nobody polled or refreshed for 7 days is listed disabled, records
        /// nothing and cannot be refreshed, then 404s 7 days later; polling an active hook extends it 7 days; refresh
        /// needs the creator while listing payloads does not.
        @Test func anIdleHookIsDisabledThenGoneAndPollingKeepsOneAlive() async throws {
            let base = try Base()
            let (_, made) = try await base.call("POST", base.hooks, Base.specification)
            let id = try #require(made["id"] as? String)
            base.fake.letTimePass(days: 3)
            _ = try await base.call("GET", base.hooks + "/\(id)/payloads?cursor=1")
            #expect((base.fake.webhookSecondsLeft[id] ?? 0) > 6.9 * 86400, "a poll moved its expiry 7 days on")
            base.fake.letTimePass(days: 8)
            let (_, listed) = try await base.call("GET", base.hooks)
            let hook = try #require(
                (listed["hooks"] as? [[String: Any]] ?? listed["webhooks"] as? [[String: Any]])?.first)
            #expect(hook["isHookEnabled"] as? Bool == false)
            _ = try await base.call(
                "POST", "/v0/\(base.fake.options.baseID)/\(base.fake.options.tableID)", ["fields": ["Name": "Unseen"]])
            let (_, page) = try await base.call("GET", base.hooks + "/\(id)/payloads?cursor=1")
            #expect((page["payloads"] as? [Any])?.isEmpty == true, "a disabled hook records nothing")
            let (refused, _) = try await base.call("POST", base.hooks + "/\(id)/refresh")
            #expect(refused == 422)
            base.fake.letTimePass(days: 7)
            let (gone, _) = try await base.call("GET", base.hooks + "/\(id)/payloads?cursor=1")
            #expect(gone == 404)
            let editor = try Base { $0.isBaseCreator = false }
            let other = editor.fake.addForeignWebhook(watching: editor.fake.options.tableID)
            let (notRefreshed, _) = try await editor.call("POST", editor.hooks + "/\(other)/refresh")
            #expect(notRefreshed == 403, "refresh needs the creator")
            let (polled, _) = try await editor.call("GET", editor.hooks + "/\(other)/payloads?cursor=1")
            #expect(polled == 200, "polling does not")
        }

        @Test func aHookWatchesItsTableOnly() async throws {
            let base = try Base { $0.tasks = [] }
            let (_, made) = try await base.call("POST", base.hooks, Base.specification)
            let id = try #require(made["id"] as? String)
            _ = try await base.call("POST", "/v0/\(base.fake.options.baseID)/Clients", ["fields": ["Name": "Acme"]])
            let (_, page) = try await base.call("GET", base.hooks + "/\(id)/payloads?cursor=1")
            #expect((page["payloads"] as? [Any])?.isEmpty == true, "a client made is not the projects' news")
        }
    }
#endif
