#if os(Linux)
    import Foundation
    import Testing

    @testable import TrackerNetwork
    @testable import TrackerSystem
    @testable import TrackerTeam

    extension TeamCopy {
        /// As if a load from Redis had brought generation `g` at version 1.
        fileprivate func pretendLoaded() { loaded = Loaded(generation: "g", version: 1, newsID: "0") }
    }

    /// The copy's phases: what a face asking is told is derived in one place from the role, what is loaded and the
    /// faults seen, and the moves change it in order. Nothing here reaches Redis (its address answers nothing).
    @Suite struct TeamCopyPhaseTests {
        static func team() throws -> TeamCopy {
            let owner = BudgetOwner(
                endpoint: URL(string: "http://127.0.0.1:9")!, baseID: "appFAKEbase000001",
                token: "patFAKEphase00000.0000000000000000000000000000000000000000000000000000000000000001",
                requestsPerSecond: 5)
            let store = TeamCopyStore(
                keys: TeamCopyStore.Keys(owner: owner, table: "tblFAKEdesign0001", layout: "names"),
                connection: RedisConnection(address: try RedisAddress.parse("redis://127.0.0.1:9").get()))
            return TeamCopy(
                store: store, settings: TeamCopy.Settings(every: 10, layout: "names", names: "names", poller: "test"),
                say: { _ in })
        }

        /// Broken by a verdict that weighs the faults in another order (an age judged over a copy that cannot vouch
        /// for itself, a fault forgotten when Redis comes back) or that serves what is not loaded.
        @Test func aFaceIsToldTheWorstOfWhatIsKnownInOrder() async throws {
            let team = try Self.team()
            #expect(await team.verdict == .waiting, "nothing loaded, nothing wrong: the face waits")
            await team.setTrouble("it is short of records")
            #expect(await team.verdict == .refused("it is short of records"))
            await team.reached(failing: RedisFailure.unreachable("connection refused"))
            #expect(await team.verdict == .unreachable)
            await team.reached(failing: nil)
            #expect(
                await team.verdict == .refused("it is short of records"), "Redis back: the fault stands until judged")
            await team.setTrouble(nil)
            #expect(await team.verdict == .waiting)
            await team.pretendLoaded()
            #expect(await team.verdict == .serving)
            await team.judgedAge("it is 900 s old and nobody keeps it up to date")
            #expect(await team.verdict == .tooOld("it is 900 s old and nobody keeps it up to date"))
            await team.setTrouble("its header names another layout of the tables")
            #expect(await team.verdict == .refused("its header names another layout of the tables"))
        }

        /// A poller that has loaded nothing serves nothing until its round has taken the copy over; one that lost the
        /// lease follows. Broken by a round that does not mark the take-over, or a lease lost that leaves it polling.
        @Test func aPollerTakingOverServesNothingUntilItsRoundEnds() async throws {
            let team = try Self.team()
            defer { Task { await team.stop() } }
            await team.tookLease(at: MonotonicClock.now())
            #expect(await team.role == .polling(takingOver: false))
            await team.takingOver(true)
            #expect(await team.role == .polling(takingOver: true))
            await team.pretendLoaded()
            #expect(await team.verdict == .waiting, "a copy being taken over is not served")
            await team.takingOver(false)
            #expect(await team.verdict == .serving)
            await team.takingOver(true)
            #expect(await team.role == .polling(takingOver: false), "a round over a loaded copy takes nothing over")
            await team.lostLease()
            #expect(await team.role == .following)
            #expect(await !team.polling)
            await team.takingOver(true)
            #expect(await team.role == .following, "only a poller takes over")
        }
    }
#endif
