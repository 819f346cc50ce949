import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerTeam

/// A table of the team's copy loaded from a scan: each record in the table's order whatever order the hash gave them
/// in, a record the scan returned twice (the hash grew or shrank while it ran) kept once, its first time, and a value
/// that is not a record named as junk.
struct TableLoadTests {
    private func stored(_ id: String, _ name: String, order: Int) -> (id: String, value: String) {
        (id, "100.000 \(order) " + TeamCopyStore.value(Project(id: id, createdTime: "", name: name)))
    }

    private func names(_ table: TableCopy<Project>) -> [String] { table.records.map { $0.name ?? "" } }

    /// The table these pages of a scan load into, the header giving `expected` records up to order `highest`.
    private func loaded(_ pages: [[(id: String, value: String)]], expected: Int, highest: Int?) -> TableCopy<Project> {
        var load = TableLoad<Project>(expected: expected, highest: highest)
        for page in pages { load.add(page) }
        return load.table()
    }

    @Test func recordsComeInTheTablesOrderWithHolesClosed() {
        var load = TableLoad<Project>(expected: 4, highest: 6)
        load.add([stored("recD", "D", order: 6), stored("recB", "B", order: 2)])
        load.add([stored("recA", "A", order: 1), stored("recC", "C", order: 4)])
        let table = load.table()
        #expect(names(table) == ["A", "B", "C", "D"])
        #expect(table.count == 4)
        #expect(table["recC"]?.name == "C")
        #expect(load.junk == nil)
    }

    @Test func aRecordReturnedTwiceIsKeptOnceTheFirstTime() {
        let table = loaded(
            [
                [stored("recA", "first A", order: 1), stored("recB", "B", order: 2)],
                [stored("recA", "second A", order: 1)],
            ],
            expected: 2, highest: 2)
        #expect(names(table) == ["first A", "B"])
        #expect(table.count == 2)
    }

    @Test func anIdFoundAgainAtAnotherOrderKeepsItsFirstPlace() {
        // Deleted and added again between two pages: a new order, the same id; the copy holds it once.
        let table = loaded(
            [[stored("recA", "A", order: 1), stored("recB", "B", order: 2)], [stored("recA", "A again", order: 3)]],
            expected: 2, highest: 3)
        #expect(names(table) == ["A", "B"])
        #expect(table.count == 2)
    }

    @Test func recordsAddedWhileTheScanRanFollowInTheirOrder() {
        // Orders past the header's highest (written after it was read), and two records at one order.
        let pages = [
            [stored("recF", "F", order: 9), stored("recA", "A", order: 1)],
            [stored("recE", "E", order: 7), stored("recB", "B", order: 2), stored("recX", "X", order: 2)],
        ]
        #expect(names(loaded(pages, expected: 2, highest: 2)) == ["A", "B", "X", "E", "F"])
    }

    @Test(arguments: [nil, 0, -3, 1_000_000_000_000])
    func aHeaderWithoutAPlausibleHighestOrderStillGivesTheOrder(highest: Int?) {
        let pages = [
            [stored("recC", "C", order: 30), stored("recA", "A", order: 10), stored("recB", "B", order: 20)],
            [stored("recA", "A again", order: 10)],
        ]
        #expect(names(loaded(pages, expected: 3, highest: highest)) == ["A", "B", "C"])
    }

    @Test func aValueThatIsNotARecordIsJunk() {
        var load = TableLoad<Project>(expected: 3, highest: 3)
        load.add([stored("recA", "A", order: 1), ("recB", "100.000 2 not json"), ("recC", "junk")])
        load.add([("recD", "100.000 3 " + TeamCopyStore.value(Project(id: "recOther", createdTime: "", name: "")))])
        #expect(load.junk == "recB")
        #expect(names(load.table()) == ["A"])
    }

    @Test func aPageDecodedInPartsAtOnceGivesWhatOnePartGives() {
        let page = (1...3000).shuffled().map { stored("rec\($0)", "Project \($0)", order: $0) }
        var inOne = TableLoad<Project>(expected: 3000, highest: 3000, parts: 1)
        var inFour = TableLoad<Project>(expected: 3000, highest: 3000, parts: 4)
        inOne.add(page)
        inFour.add(page)
        let expected = (1...3000).map { "Project \($0)" }
        #expect(names(inOne.table()) == expected)
        #expect(names(inFour.table()) == expected)
        #expect(TableLoad<Project>.decode(page, pools: (0..<4).map { _ in StringPool() }).count == 4)
    }

    @Test func sharedPeopleAndLinksKeepTheirValues() {
        let people = [
            Collaborator(id: "usrA", name: "Ann", email: "ann@example.com"), Collaborator(id: "usrB", name: nil),
        ]
        let tasks = (1...600).map { number in
            ProjectTask(
                id: "recT\(number)", createdTime: "", name: "Task \(number)",
                projects: ["recP\(number % 7)", "recP\(number % 3)"],
                assignee: number % 5 == 0 ? nil : people[number % 2])
        }
        let projects = (1...600).map { number in
            Project(
                id: "recP\(number)", createdTime: "", category: number % 2 == 0 ? "Brand" : nil,
                lead: number % 3 == 0 ? nil : people[number % 2], team: Array(people.prefix(number % 3)),
                clients: ["recC\(number % 4)"])
        }
        var taskLoad = TableLoad<ProjectTask>(expected: 600, highest: 600, parts: 3)
        taskLoad.add(tasks.enumerated().map { ($1.id, "1.000 \($0 + 1) " + TeamCopyStore.value($1)) }.shuffled())
        #expect(taskLoad.table().records == tasks)
        var projectLoad = TableLoad<Project>(expected: 600, highest: 600, parts: 3)
        projectLoad.add(projects.enumerated().map { ($1.id, "1.000 \($0 + 1) " + TeamCopyStore.value($1)) }.shuffled())
        #expect(projectLoad.table().records == projects)
    }

    @Test func aCopyMadeFromSlotsIndexesEachIdOnceAndClosesItsHoles() {
        var slots: [Project?] = Array(repeating: nil, count: 200)
        slots[3] = Project(id: "recA", createdTime: "", name: "A")
        slots[150] = Project(id: "recB", createdTime: "", name: "B")
        slots[160] = Project(id: "recA", createdTime: "", name: "A later")
        let table = TableCopy(slots: slots)
        #expect(table.records.map { $0.name ?? "" } == ["A", "B"])
        #expect(table.count == 2)
        #expect(table["recA"]?.name == "A")
        #expect(table["recB"]?.name == "B")
        // Few holes, so nothing is compacted: the index itself keeps the first place.
        let kept = TableCopy(slots: [
            Project(id: "recA", createdTime: "", name: "A"), Project(id: "recB", createdTime: "", name: "B"),
            Project(id: "recA", createdTime: "", name: "A later"), Project(id: "recC", createdTime: "", name: "C"),
        ])
        #expect(kept.records.map { $0.name ?? "" } == ["A", "B", "C"])
        #expect(kept["recA"]?.name == "A")
        #expect(kept.count == 3)
    }
}
