import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerOperations

/// Task rows come in their project's order (due date, name, id), then by their own name and id, whatever case the
/// names are in; cut to a limit, they are the first of that order, found without sorting them all.
struct TaskRowsOrderTests {
    private let today = CalendarDate("2026-11-30")!

    @Test func rowsGoByTheirProjectsDueDateNameAndIdThenTheirOwnNameAndId() {
        let projects = [
            Project(id: "recP1", createdTime: "", name: "beta", due: CalendarDate("2026-12-01")),
            Project(id: "recP2", createdTime: "", name: "Alpha", due: CalendarDate("2026-12-01")),
            Project(id: "recP3", createdTime: "", name: "early", due: CalendarDate("2026-11-01")),
            Project(id: "recP4", createdTime: "", name: "undated"),
        ]
        let tasks = [
            ProjectTask(id: "recT1", createdTime: "", name: "b", projects: ["recP1"]),
            ProjectTask(id: "recT2", createdTime: "", name: "A", projects: ["recP1"]),
            ProjectTask(id: "recT3", createdTime: "", name: "z", projects: ["recP2"]),
            ProjectTask(id: "recT4", createdTime: "", name: "same", projects: ["recP3"]),
            ProjectTask(id: "recT0", createdTime: "", name: "Same", projects: ["recP3"]),
            ProjectTask(id: "recT5", createdTime: "", name: "orphan", projects: ["recGone"]),
            ProjectTask(id: "recT6", createdTime: "", name: "loose"),
            ProjectTask(id: "recT7", createdTime: "", name: "later", projects: ["recP4"]),
        ]
        let rows = TaskRows(
            tasks, projects: Dictionary(uniqueKeysWithValues: projects.map { ($0.id, $0) }), today: today)
        #expect(rows.tasks.map(\.id) == ["recT0", "recT4", "recT3", "recT2", "recT1", "recT7", "recT6", "recT5"])
        let first = TaskRows(
            tasks, projects: Dictionary(uniqueKeysWithValues: projects.map { ($0.id, $0) }), today: today, limit: 3)
        #expect(first.tasks.map(\.id) == ["recT0", "recT4", "recT3"])
    }

    @Test func aLimitKeepsAProjectWithoutADueDateBeforeOneNotKnownAndBeforeNoProject() {
        let undated = Project(id: "recP1", createdTime: "", name: "Undated")
        var tasks = [
            ProjectTask(id: "recT1", createdTime: "", name: "a", projects: ["recGone"]),
            ProjectTask(id: "recT2", createdTime: "", name: "z", projects: ["recP1"]),
        ]
        tasks += (0..<10).map { ProjectTask(id: "recN\($0)", createdTime: "", name: "b\($0)") }
        let rows = TaskRows(tasks, projects: [undated.id: undated], today: today, limit: 2)
        #expect(rows.tasks.map(\.id) == ["recT2", "recT1"])
    }

    @Test(arguments: [0, 1, 2, 7, 50, 99, 100, 400, 401, 1000])
    func aLimitGivesTheFirstRowsOfTheWholeOrder(limit: Int) {
        var random = SystemRandomNumberGenerator()
        let projects = (0..<60).map { number in
            Project(
                id: "recP\(number)", createdTime: "", name: ["a", "B", "c", "b"].randomElement(using: &random),
                due: Int.random(in: 0..<4, using: &random) == 0
                    ? CalendarDate(dayNumber: 20_000 + Int.random(in: 0..<5)) : nil)
        }
        let tasks = (0..<400).map { number in
            ProjectTask(
                id: "recT\(number)", createdTime: "", name: ["x", "X", "y", nil].randomElement(using: &random) ?? nil,
                projects: Int.random(in: 0..<10, using: &random) == 0 ? [] : ["recP\(Int.random(in: 0..<70))"])
        }
        let known = Dictionary(uniqueKeysWithValues: projects.map { ($0.id, $0) })
        let whole = TaskRows(tasks, projects: known, today: today).tasks.map(\.id)
        #expect(Set(whole).count == tasks.count)
        #expect(
            TaskRows(tasks, projects: known, today: today, limit: limit).tasks.map(\.id) == Array(whole.prefix(limit)))
    }

    @Test func theCopyPagesTheRecordsItKeepsUpToALimit() {
        var copy = TableCopy<ProjectTask>()
        copy.merge((0..<10).map { ProjectTask(id: "recT\($0)", createdTime: "", isComplete: $0 % 2 == 0) })
        let pages = copy.pages(where: \.isComplete, limit: 4, size: 3)
        #expect(pages.map { $0.map(\.id) } == [["recT0", "recT2", "recT4"], ["recT6"]])
        #expect(copy.pages(where: \.isComplete, size: 5).map(\.count) == [5])
        #expect(copy.pages(where: { _ in false }, size: 3).isEmpty)
    }
}
