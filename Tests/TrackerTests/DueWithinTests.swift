import Testing

@testable import TrackerModel
@testable import tracker
@testable import TrackerBoard
@testable import TrackerOperations

/// The board's This week is `DueWithin` of 7 days, as list, report and status are of theirs.
@Suite struct DueWithinTests {
    static let friday = CalendarDate("2026-11-27")!

    @Test(arguments: [(-1, BoardCard.Column.overdue), (0, .thisWeek), (6, .thisWeek), (7, .later)])
    func aWeekFromFridayRunsToThursdayOnTheBoard(offset: Int, column: BoardCard.Column) {
        var project = Project(id: "rec1", createdTime: "2026-01-01T00:00:00.000Z")
        project.due = CalendarDate(dayNumber: Self.friday.dayNumber + offset)
        #expect(BoardCard(project).column(today: Self.friday) == column)
    }

    @Test func theWindowHoldsTodayAndTheDaysAfterIt() {
        let week = DueWithin(days: 7, from: Self.friday)
        #expect(week.lastDay == CalendarDate("2026-12-03"))
        #expect(week.contains(Self.friday) && week.contains(CalendarDate("2026-12-03")!))
        #expect(!week.contains(CalendarDate("2026-12-04")!) && !week.contains(CalendarDate("2026-11-26")!))
        #expect(DueWithin(days: 1, from: Self.friday).lastDay == Self.friday)
        #expect(DueWithin.words("7") == "due today or in the 6 days after it")
        #expect(DueWithin.words("N") == "due today or in the N-1 days after it")
    }
}
