import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct CalendarDateTests {
    @Test(arguments: ["2026-12-01", "2024-02-29", "2000-02-29", "1999-12-31", "0001-01-01"])
    func acceptsRealDates(text: String) throws {
        let date = try #require(CalendarDate(text))
        #expect(date.description == text)
    }

    @Test(arguments: [
        "2026-02-30", "2025-02-29", "1900-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-1-01", "26-01-01",
        "2026/01/01", "2026-01-01T00:00", " 2026-01-01", "", "２０２６-01-01", "+026-01-01",
    ])
    func rejectsAnythingElse(text: String) {
        #expect(CalendarDate(text) == nil)
    }

    @Test(arguments: [
        ("2026-11-21", "today"), ("2026-11-22", "tomorrow"), ("2026-11-20", "yesterday"), ("2026-11-24", "in 3 days"),
        ("2026-11-19", "2 days ago"), ("2026-12-05", "in 2 weeks"), ("2027-02-21", "in 3 months"),
        ("2020-11-07", "6 years ago"),
    ])
    func describesDistanceFromToday(text: String, expected: String) {
        #expect(CalendarDate(text)!.relative(to: CalendarDate("2026-11-21")!) == expected)
    }

    @Test func countsDaysAcrossMonthsAndLeapYears() {
        #expect(CalendarDate("2024-02-28")!.days(until: CalendarDate("2024-03-01")!) == 2)
        #expect(CalendarDate("2025-12-31")!.days(until: CalendarDate("2026-01-01")!) == 1)
        #expect(CalendarDate("1970-01-01")!.dayNumber == 0)
    }

    @Test func statusFollowsCompletionThenDueDate() {
        let today = CalendarDate("2026-11-21")!
        #expect(
            Project(id: "r", createdTime: "", isComplete: true, due: CalendarDate("2020-01-01")).status(today: today)
                == .done)
        #expect(Project(id: "r", createdTime: "", due: CalendarDate("2026-11-20")).status(today: today) == .overdue)
        #expect(Project(id: "r", createdTime: "", due: today).status(today: today) == .open)
        #expect(Project(id: "r", createdTime: "").status(today: today) == .open)
    }
}
