import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerTeam

/// A batch of a scan of the team's copy, decoded: a record the scan returned twice (the hash grew or shrank while it
/// ran) is kept once, the first time, so each order stands beside its own record; a value that is not a record is junk.
struct TeamCopyDecodeTests {
    private func stored(_ id: String, _ name: String, order: Int) -> (id: String, value: String) {
        (id, "100.000 \(order) " + TeamCopyStore.value(Project(id: id, createdTime: "", name: name)))
    }

    @Test func aRecordReturnedTwiceIsKeptOnceTheFirstTime() {
        let batch = [
            stored("recA", "first A", order: 0), stored("recB", "B", order: 1), stored("recA", "second A", order: 7),
            stored("recEarlier", "again", order: 9),
        ]
        let decoded = TeamCopy.decode(batch, as: Project.self) { $0 == "recEarlier" }
        #expect(decoded.records.map(\.name) == ["first A", "B"])
        #expect(decoded.orders == [0, 1])
        #expect(decoded.junk == nil)
    }

    @Test func aValueThatIsNotARecordIsJunk() {
        let batch = [stored("recA", "A", order: 0), ("recB", "100.000 1 not json"), ("recC", "junk")]
        let decoded = TeamCopy.decode(batch, as: Project.self) { _ in false }
        #expect(decoded.records.map(\.id) == ["recA"])
        #expect(decoded.junk == "recB")
    }
}
