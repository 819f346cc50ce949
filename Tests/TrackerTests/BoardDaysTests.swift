import FakeAirtable
import Foundation
import Testing

@testable import TrackerBoard
@testable import TrackerModel

/// The demo base moves its dates by whole weeks, so which cards share a column, and in what order, changes with the
/// weekday. The board's columns follow the dates on every day of the week and across a month's and a year's end, and
/// a card found by its name is the card acted on whatever else shares its column (on Saturdays "Premier utility
/// bike", due the next day, comes before "Coffee packaging").
@Suite struct BoardDaysTests {
    static let days = [
        "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29",
        "2026-11-30", "2026-12-31", "2027-01-01",
    ]

    /// The demo's projects on `day`, as cards.
    static func cards(on day: String) -> [BoardCard] {
        FakeAirtable.demo(today: day).records.compactMap { record in
            guard let id = record["id"] as? String, let fields = record["fields"] as? [String: Any] else { return nil }
            var project = Project(id: id, createdTime: "2026-01-01T00:00:00.000Z")
            project.name = fields["Name"] as? String ?? ""
            project.due = (fields["Due date"] as? String).flatMap(CalendarDate.init)
            project.isComplete = fields["Complete"] as? Bool ?? false
            return BoardCard(project)
        }
    }

    @Test(arguments: days)
    func everyCardIsInTheColumnItsDateSays(day: String) throws {
        let today = try #require(CalendarDate(day))
        let cards = Self.cards(on: day)
        var model = BoardModel(today: today)
        model.add(cards)
        model.isLoading = false
        let columns = model.columns()
        #expect(columns.map(\.count).reduce(0, +) == cards.count, "each card in one column")
        for card in cards {
            let expected: BoardCard.Column
            if card.complete {
                expected = .done
            } else if let due = card.due, due.dayNumber < today.dayNumber {
                expected = .overdue
            } else if let due = card.due, due.dayNumber <= today.dayNumber + 6 {
                expected = .thisWeek
            } else {
                expected = .later
            }
            #expect(columns[expected.rawValue].contains { $0.id == card.id }, "\(card.name) on \(day)")
        }
        #expect(columns[BoardCard.Column.thisWeek.rawValue].contains { $0.name == "Coffee packaging" })
    }

    @Test(arguments: days)
    func aCardFoundByNameIsTheOneMarkedDone(day: String) throws {
        var model = BoardModel(today: try #require(CalendarDate(day)))
        model.add(Self.cards(on: day))
        model.isLoading = false
        for key in [Key.character("/")] + "Coffee".map({ Key.character($0) }) + [.enter] {
            _ = model.handle(key, pageSize: 10)
        }
        _ = model.handle(.character("d"), pageSize: 10)
        let coffee = try #require(Self.cards(on: day).first { $0.name == "Coffee packaging" })
        #expect(
            model.handle(.character("y"), pageSize: 10)
                == .setProjectDone(coffee.id, name: "Coffee packaging", done: true))
    }
}
