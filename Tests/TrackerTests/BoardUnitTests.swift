import Foundation
import Testing

@testable import TrackerModel
@testable import tracker
@testable import TrackerBoard
@testable import TrackerOperations

/// The board's pure parts: keys read from bytes, the model's answers to keys, the screen drawn from the model, and the
/// frames sent for it.
@Suite struct BoardUnitTests {
    static let today = CalendarDate(year: 2026, month: 11, day: 26)!

    static func card(_ id: String, _ name: String, due: Int?, complete: Bool = false, lead: String? = "Gal Samari")
        -> BoardCard
    {
        var project = Project(id: id, createdTime: "2026-01-01T00:00:00.000Z")
        project.name = name
        project.due = due.map { CalendarDate(dayNumber: today.dayNumber + $0) }
        project.isComplete = complete
        project.lead = lead.map { Collaborator(id: "usr\($0.prefix(3))", name: $0, email: nil) }
        return BoardCard(project)
    }

    static func model(_ cards: [BoardCard]) -> BoardModel {
        var model = BoardModel(today: today)
        model.add(cards)
        model.isLoading = false
        return model
    }

    @Test(arguments: [
        ([0x1B, 0x5B, 0x41], [Key.up]), ([0x1B, 0x4F, 0x41], [.up]), ([0x1B, 0x5B, 0x36, 0x7E], [.pageDown]),
        ([0x1B, 0x5B, 0x35, 0x7E], [.pageUp]), ([0x1B, 0x5B, 0x48], [.home]), ([0x1B, 0x5B, 0x34, 0x7E], [.end]),
        ([0x6A, 0x0D], [.character("j"), .enter]), ([0x03], [.interrupt]), ([0x1A], [.suspend]),
        ([0x7F], [.backspace]), ([0xE8, 0xA8, 0xAD], [.character("設")]),
        // Unknown sequences are dropped whole: never read as the letters they hold.
        ([0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E, 0x71], [.character("q")]),
        ([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43], [.right]),
    ])
    func keysAreReadFromBytes(bytes: [UInt8], keys: [Key]) {
        #expect(KeyParser.parse(bytes).keys == keys)
    }

    @Test func aLoneEscapeWaitsToBeTheEscKey() {
        let (keys, rest) = KeyParser.parse([0x1B])
        #expect(keys.isEmpty && rest == [0x1B])
        #expect(KeyParser.finish(rest) == [.escape])
        // A sequence cut between reads is finished by the next.
        let first = KeyParser.parse([0x1B, 0x5B])
        #expect(first.keys.isEmpty)
        #expect(KeyParser.parse(first.rest + [0x42]).keys == [.down])
    }

    @Test func cardsGoToTheirColumnsInOrder() {
        var model = Self.model([
            Self.card("rec1", "Late", due: -3), Self.card("rec2", "Later late", due: -1),
            Self.card("rec3", "Soon", due: 2), Self.card("rec4", "Next month", due: 30),
            Self.card("rec5", "Undated", due: nil), Self.card("rec6", "Done", due: -2, complete: true),
            Self.card("rec7", "Today", due: 0), Self.card("rec8", "In a week", due: 7),
        ])
        let columns = model.columns().map { $0.map(\.name) }
        #expect(columns[0] == ["Late", "Later late"])
        #expect(columns[1] == ["Today", "Soon"])
        #expect(columns[2] == ["In a week", "Next month", "Undated"])
        #expect(columns[3] == ["Done"])
    }

    @Test func keysMoveSearchAndAskBeforeWriting() {
        var model = Self.model([Self.card("rec1", "Coffee packaging", due: 2), Self.card("rec2", "Tea", due: 3)])
        #expect(model.handle(.right, pageSize: 5) == .none)
        #expect(model.selectedCard()?.name == "Coffee packaging")
        _ = model.handle(.character("j"), pageSize: 5)
        #expect(model.selectedCard()?.name == "Tea")
        // d asks; anything but y is no.
        #expect(model.handle(.character("d"), pageSize: 5) == .none)
        #expect(model.handle(.character("n"), pageSize: 5) == .none)
        _ = model.handle(.character("d"), pageSize: 5)
        #expect(model.handle(.character("y"), pageSize: 5) == .setProjectDone("rec2", name: "Tea", done: true))
        // A comment is sent on Enter, once, and dropped on Esc.
        _ = model.handle(.character("c"), pageSize: 5)
        for character in "ok" { _ = model.handle(.character(character), pageSize: 5) }
        #expect(model.handle(.enter, pageSize: 5) == .comment("rec2", name: "Tea", text: "ok"))
        #expect(model.input == nil)
        _ = model.handle(.character("/"), pageSize: 5)
        for character in "cof" { _ = model.handle(.character(character), pageSize: 5) }
        #expect(model.columns()[1].map(\.name) == ["Coffee packaging"])
        _ = model.handle(.escape, pageSize: 5)
        #expect(model.columns()[1].count == 2)
        #expect(model.handle(.character("q"), pageSize: 5) == .quit)
        #expect(model.handle(.interrupt, pageSize: 5) == .quit)
    }

    @Test func mineIsLeadTeamOrAnAssignee() {
        var assigned = Self.card("rec3", "Assigned", due: 2, lead: "Someone Else")
        assigned.assignees = ["usrMEE"]
        var model = Self.model([
            Self.card("rec1", "Led", due: 2, lead: "MEE"), Self.card("rec2", "Not mine", due: 2, lead: "Other"),
            assigned,
        ])
        model.me = "usrMEE"
        _ = model.handle(.character("m"), pageSize: 5)
        #expect(Set(model.columns()[1].map(\.name)) == ["Led", "Assigned"])
    }

    @Test func theScreenFitsAndCutsNamesCountingWideCharacters() {
        var model = Self.model([
            Self.card("rec1", "設計プロジェクト 🎨 and a very long name that cannot fit", due: -1),
            Self.card("rec2", "Evil \u{1B}]0;title\u{07}", due: 2), Self.card("rec3", "Bidi \u{202E}gnp.exe", due: 9),
        ])
        for (width, height) in [(80, 24), (200, 50), (60, 16)] {
            let screen = BoardScreen(width: width, height: height, unicode: true, table: "Design projects")
            let lines = screen.render(&model)
            #expect(lines.count == height)
            for line in lines.dropLast() { #expect(TextCells.width(line.plain) == width, "\(line.plain)") }
            #expect(TextCells.width(lines.last!.plain) == width - 1, "the last cell is never written")
            let text = lines.map { $0.rendered(colour: true) }.joined()
            #expect(!text.contains("\u{1B}]0;"))
            #expect(!text.contains("\u{202E}"))
            #expect(lines.contains { $0.plain.contains("設計") && $0.plain.contains("…") })
        }
    }

    @Test func aSmallWindowSaysSoAndASCIIHasNoUnicode() {
        var model = Self.model([Self.card("rec1", "Café ☕", due: 1)])
        let small = BoardScreen(width: 40, height: 10, unicode: true, table: "T").render(&model)
        #expect(small.contains { $0.plain.contains("too small") })
        let ascii = BoardScreen(width: 80, height: 24, unicode: false, table: "T").render(&model)
        #expect(ascii.allSatisfy { $0.rendered(colour: false).unicodeScalars.allSatisfy(\.isASCII) })
        #expect(ascii.contains { $0.plain.contains("Caf? ?") })
    }

    @Test func aFrameIsTheChangedLinesInOneWrite() {
        var model = Self.model((0..<20).map { Self.card("rec\($0)", "Project \($0)", due: 1) })
        let screen = BoardScreen(width: 80, height: 24, unicode: true, table: "T")
        var writer = FrameWriter(colour: false)
        let first = writer.frame(screen.render(&model))
        #expect(first.hasPrefix("\u{1B}[?2026h") && first.hasSuffix("\u{1B}[?2026l"))
        #expect(writer.frame(screen.render(&model)).isEmpty, "nothing changed, nothing sent")
        _ = model.handle(.right, pageSize: screen.cardsShown)
        _ = model.handle(.down, pageSize: screen.cardsShown)
        let moved = writer.frame(screen.render(&model))
        let rows = moved.components(separatedBy: "\u{1B}[").filter {
            $0.range(of: #"^\d+;1H"#, options: .regularExpression) != nil
        }
        #expect(rows.count <= 6, "the selection moved: its old and new card lines and the column titles, \(rows.count)")
        #expect(moved.utf8.count < 1_500, "\(moved.utf8.count) bytes")
    }
}

extension BoardUnitTests {
    @Test func mineIsDecidedAgainWhenTheUserIsKnown() {
        var model = Self.model([
            Self.card("rec1", "Gal's", due: 3), Self.card("rec2", "Bailey's", due: 4, lead: "Bailey Mirza"),
        ])
        // m before whoami answers: nothing can be told mine yet.
        _ = model.handle(.character("m"), pageSize: 10)
        #expect(model.columns().flatMap { $0 }.isEmpty)
        // The answer arrives: the same columns are narrowed again, not kept from before.
        model.me = "usrGal"
        #expect(model.columns().flatMap { $0 }.map(\.name) == ["Gal's"])
        // A task assigned makes a project mine too.
        model.update("rec2") { $0.assignees = ["usrGal"] }
        #expect(model.columns().flatMap { $0 }.map(\.name).sorted() == ["Bailey's", "Gal's"])
    }

    @Test func aSearchThatEmptiesTheSelectedColumnSelectsTheNearestCardShown() {
        var model = Self.model([
            Self.card("rec1", "Late one", due: -3), Self.card("rec2", "Coffee packaging", due: 2),
            Self.card("rec3", "Much later", due: 30),
        ])
        #expect(model.selectedColumn == 0)
        for key in [Key.character("/")] + "Coffee".map({ Key.character($0) }) + [.enter] {
            _ = model.handle(key, pageSize: 10)
        }
        #expect(model.selectedColumn == BoardCard.Column.thisWeek.rawValue)
        #expect(model.selectedCard()?.name == "Coffee packaging")
        #expect(model.handle(.enter, pageSize: 10) == .openCard("rec2"), "Enter opens the one card shown")
        // A read that takes the selected card away selects the one that took its place.
        model.screen = .board
        model.search = ""
        model.replace(with: [Self.card("rec1", "Late one", due: -3), Self.card("rec4", "Soon too", due: 3)])
        #expect(model.selectedCard()?.name == "Soon too")
        // And one that empties its column selects the nearest column's.
        model.replace(with: [Self.card("rec1", "Late one", due: -3), Self.card("rec3", "Much later", due: 30)])
        #expect(model.selectedCard()?.name == "Late one")
    }

    /// Movement skips empty columns both ways: with "This week" empty, l and → reach Later and Done from Overdue
    /// (before, → landed on the empty column and the selection fell back to Overdue).
    @Test func movingSkipsAnEmptyColumnBothWays() {
        var model = Self.model([
            Self.card("rec1", "Late one", due: -3), Self.card("rec2", "Late two", due: -1),
            Self.card("rec3", "Much later", due: 30), Self.card("rec4", "Finished", due: -2, complete: true),
        ])
        #expect(model.columns()[BoardCard.Column.thisWeek.rawValue].isEmpty)
        #expect(model.selectedColumn == BoardCard.Column.overdue.rawValue)
        _ = model.handle(.right, pageSize: 5)
        #expect(model.selectedCard()?.name == "Much later")
        _ = model.handle(.character("l"), pageSize: 5)
        #expect(model.selectedCard()?.name == "Finished")
        _ = model.handle(.right, pageSize: 5)
        #expect(model.selectedCard()?.name == "Finished", "the last column: it stays")
        _ = model.handle(.character("h"), pageSize: 5)
        #expect(model.selectedCard()?.name == "Much later")
        _ = model.handle(.left, pageSize: 5)
        #expect(model.selectedColumn == BoardCard.Column.overdue.rawValue)
    }
}
