import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct RendererTests {
    static let today = CalendarDate("2026-11-21")!
    static let awkward = Project(
        id: "recAAAAAAAAAAAAAA", createdTime: "2026-01-01T00:00:00.000Z", name: "Tab\there,\n\"quoted\"",
        category: "Brand identity", due: CalendarDate("2026-11-20"),
        lead: Collaborator(name: "Gal Samari", email: "g@example.com"))
    static let bare = Project(id: "recBBBBBBBBBBBBBB", createdTime: "2026-01-01T00:00:00.000Z", name: "Bare")

    func render(_ format: ListFormat, _ pages: [[Project]], width: Int = 80, color: Bool = false) -> String {
        var renderer = makeRenderer(format, today: Self.today, style: Style(isEnabled: color), width: width)
        return pages.map { renderer.render(page: $0) }.joined() + renderer.finish()
    }

    @Test func tsvHasSixColumnsAndFoldsTabsAndNewlines() {
        #expect(
            render(.tsv, [[Self.awkward], [Self.bare]])
                == "recAAAAAAAAAAAAAA\tTab here, \"quoted\"\t2026-11-20\toverdue\tBrand identity\tGal Samari\nrecBBBBBBBBBBBBBB\tBare\t\topen\t\t\n"
        )
    }

    @Test func csvFollowsRFC4180WithAHeader() {
        #expect(
            render(.csv, [[Self.awkward, Self.bare]])
                == "id,name,due,status,category,lead-name\r\nrecAAAAAAAAAAAAAA,\"Tab\there,\n\"\"quoted\"\"\",2026-11-20,overdue,Brand identity,Gal Samari\r\nrecBBBBBBBBBBBBBB,Bare,,open,,\r\n"
        )
        #expect(render(.csv, []) == "id,name,due,status,category,lead-name\r\n")
    }

    @Test func jsonIsOneArrayAcrossPagesAndEmptyIsBrackets() {
        let text = render(.json, [[Self.awkward], [], [Self.bare]])
        #expect(text.hasPrefix("[\n{\"id\":\"recAAAAAAAAAAAAAA\",\"name\":\"Tab\\there,\\n\\\"quoted\\\"\""))
        #expect(text.hasSuffix("\"createdTime\":\"2026-01-01T00:00:00.000Z\",\"fields\":{}}\n]\n"))
        #expect(render(.json, [[]]) == "[]\n")
        #expect(render(.ndjson, [[]]) == "")
    }

    @Test func theProjectObjectHasEveryKeyInOrder() {
        #expect(
            Self.bare.jsonText(today: Self.today)
                == #"{"id":"recBBBBBBBBBBBBBB","name":"Bare","category":null,"complete":false,"kickoff":null,"due":null,"status":"open","lead":null,"team":[],"clients":[],"notes":null,"createdTime":"2026-01-01T00:00:00.000Z","fields":{}}"#
        )
        // The base's own fields follow under "fields", by name, in the order Airtable sent them.
        var own = Self.bare
        own.otherFields = [
            FieldValue("Budget", .number(1250.5)), FieldValue("Tags", .array([.string("web"), .string("print")])),
            FieldValue("Owner", .object([("name", .string("Ana")), ("email", .string("ana@example.com"))])),
        ]
        #expect(
            own.jsonText(today: Self.today).hasSuffix(
                #","fields":{"Budget":1250.5,"Tags":["web","print"],"Owner":{"name":"Ana","email":"ana@example.com"}}}"#
            ))
    }

    @Test func jsonTextEscapesEveryControlCharacterAndKeepsOtherTextAsItIs() throws {
        let hostile = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }.joined() + "\"\\/é🎉\u{7F}\u{2028}"
        var json = JSONWriter()
        json.string(hostile)
        #expect(json.text.hasPrefix(#""\u0000\u0001"#) && json.text.contains(#"\u001b"#))
        #expect(json.text.contains("\t") == false && json.text.utf8.allSatisfy { $0 >= 0x20 })
        // Foundation's own reader, not tracker's, reads it back to the same text.
        let back = try JSONSerialization.jsonObject(with: Data(json.bytes), options: .fragmentsAllowed) as? String
        #expect(back == hostile)
        #expect(
            JSONValue.object([("a", .array([.number(1), .number(2.5), .null, .bool(true)]))]).serialized()
                == #"{"a":[1,2.5,null,true]}"#)
    }

    @Test func ndjsonIsOneObjectALine() {
        let lines = render(.ndjson, [[Self.awkward, Self.bare]]).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("{\"id\":\"rec") && $0.hasSuffix("}") })
    }

    @Test(arguments: [80, 120, 50])
    func theTableFitsTheWidthAndCutsLongNames(width: Int) {
        let long = Project(
            id: "recCCCCCCCCCCCCCC", createdTime: "", name: String(repeating: "Very long name ", count: 10),
            due: CalendarDate("2026-11-24"))
        let lines = render(.table, [[Self.awkward, long], [Self.bare]], width: width).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("ID                 NAME"))
        // Every character here takes one column, so counting characters measures the line.
        for line in lines { #expect(line.count <= width, "\(line)") }
        #expect(lines[2].contains("…"))
        #expect(lines[2].contains("2026-11-24"), "the ISO due date always stays")
        #expect(lines[1].contains("overdue"))
    }

    @Test func wideNamesKeepTheColumnsAligned() {
        let names = ["🚀 Launch", "👩‍💻 Dev portal", "日本 rebrand", "Plain"]
        let projects = names.enumerated().map { index, name in
            Project(
                id: "recAAAAAAAAAAAAA\(index)", createdTime: "", name: name, due: CalendarDate("2026-11-2\(index + 2)"))
        }
        let lines = render(.table, [projects], width: 80).split(separator: "\n").map(String.init)
        // Columns measured with widths a terminal gives these characters, independently of TextCells.
        func columns(before needle: String, in line: String) -> Int {
            let prefix = line[..<line.range(of: needle)!.lowerBound]
            return prefix.reduce(0) { $0 + (["🚀", "👩‍💻", "日", "本"].contains($1) ? 2 : 1) }
        }
        #expect(lines.count == 5)
        let due = columns(before: "DUE", in: lines[0])
        for (line, day) in zip(lines.dropFirst(), ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"]) {
            #expect(columns(before: day, in: line) == due, "\(line)")
        }
    }

    @Test func aNarrowTableGivesUpTheRelativePhraseThenNameWidthThenColumnsAndSaysWhich() {
        let projects = [
            Project(
                id: "recAAAAAAAAAAAAAA", createdTime: "", name: "Quarterly brand refresh", category: "Brand identity",
                due: CalendarDate("2026-11-24"), lead: Collaborator(name: "Gal Samari"))
        ]
        func table(_ width: Int) -> (String, [ListColumn]) {
            var renderer = TableRenderer(today: Self.today, style: Style(isEnabled: false), width: width)
            return (renderer.render(page: projects), renderer.leftOut)
        }
        // The full row takes 102 columns: ID 17, NAME 23, DUE 22, STATUS 6, CATEGORY 14, LEAD 10 and five gaps.
        let (wide, wideLeft) = table(110)
        #expect(wide.contains("Quarterly brand refresh  2026-11-24 (in 3 days)  open"), "\(wide)")
        #expect(wideLeft.isEmpty)
        let (medium, mediumLeft) = table(95)
        #expect(
            medium.contains("Quarterly brand refresh  2026-11-24  open"), "the relative phrase goes first: \(medium)")
        #expect(mediumLeft.isEmpty)
        let (narrow, narrowLeft) = table(87)
        #expect(narrow.contains("Quarterly brand ref…  2026-11-24"), "then NAME shortens: \(narrow)")
        #expect(narrowLeft.isEmpty)
        let (tight, tightLeft) = table(60)
        #expect(tightLeft == [.category, .leadName], "then columns go, from the right")
        #expect(tight.contains("2026-11-24  open"))
        for line in tight.split(separator: "\n") { #expect(line.count <= 60) }
    }

    @Test func chosenColumnsPickAndOrderTSVAndCSV() {
        let project = Project(
            id: "recAAAAAAAAAAAAAA", createdTime: "2026-01-01T00:00:00.000Z", name: "N", isComplete: true,
            kickoff: CalendarDate("2026-11-01"), due: CalendarDate("2026-11-24"),
            lead: Collaborator(name: "Gal", email: "gal@example.com"),
            team: [Collaborator(name: "A", email: "a@example.com"), Collaborator(name: "B")],
            clients: ["recC1", "recC2"],
            notes: "two\nlines")
        var tsv = makeRenderer(
            .tsv, today: Self.today, style: Style(isEnabled: false), width: 80,
            columns: [.name, .leadEmail, .team, .clients, .complete, .notes, .kickoff])
        #expect(
            tsv.render(page: [project])
                == "N\tgal@example.com\ta@example.com;B\trecC1;recC2\ttrue\ttwo lines\t2026-11-01\n")
        var csv = makeRenderer(
            .csv, today: Self.today, style: Style(isEnabled: false), width: 80, columns: [.notes, .id])
        #expect(csv.render(page: [project]) == "notes,id\r\n\"two\nlines\",recAAAAAAAAAAAAAA\r\n")
    }

    @Test func colourNeverCarriesMeaningAlone() {
        let colored = render(.table, [[Self.awkward]], color: true)
        #expect(colored.contains("\u{1B}[31moverdue"))
        #expect(!render(.table, [[Self.awkward]]).contains("\u{1B}"))
    }

    @Test(arguments: [
        (ColorChoice.auto, true, [String: String](), true), (.auto, false, [:], false),
        (.auto, true, ["NO_COLOR": "1"], false),
        (.auto, true, ["TERM": "dumb"], false), (.never, true, [:], false), (.always, false, ["NO_COLOR": "1"], true),
        (.auto, true, ["NO_COLOR": ""], true),
    ])
    func colourRules(choice: ColorChoice, terminal: Bool, environment: [String: String], expected: Bool) {
        #expect(choice.isEnabled(isTerminal: terminal, environment: environment) == expected)
    }

    @Test func showLabelsEveryFieldAndNamesClients() {
        let project = Project(
            id: "recAAAAAAAAAAAAAA", createdTime: "2015-02-10T20:57:11.000Z", name: "CMCA brand identity",
            category: "Brand identity",
            kickoff: CalendarDate("2026-11-18"), due: CalendarDate("2026-11-24"),
            lead: Collaborator(name: "Gal Samari", email: "gal@example.com"),
            team: [Collaborator(name: "Sam Epps", email: "sam@example.com"), Collaborator(name: "Skyler Xu")],
            clients: ["rectEfoe4zYOn8xDM", "recUNKNOWNclient1"], notes: "First line\nsecond line")
        let view = ProjectView(
            today: Self.today, style: Style(isEnabled: false), timeZone: Zone(identifier: "UTC")!)
        #expect(
            view.render(project, clientNames: ["rectEfoe4zYOn8xDM": "Acme"]) == """
                CMCA brand identity
                  ID        recAAAAAAAAAAAAAA
                  Status    open
                  Due       2026-11-24 (in 3 days)
                  Kickoff   2026-11-18 (3 days ago)
                  Category  Brand identity
                  Lead      Gal Samari <gal@example.com>
                  Team      Sam Epps <sam@example.com>, Skyler Xu
                  Clients   Acme, recUNKNOWNclient1
                  Created   2015-02-10 (11 years ago)
                  Notes     First line
                            second line

                """)
    }

    @Test func showMarksEmptyFieldsAndWrapsNotesUnderTheirLabel() {
        let project = Project(
            id: "recBBBBBBBBBBBBBB", createdTime: "2026-11-21T23:30:00.000Z", name: "Bare",
            notes: "one two three four five six seven eight nine ten eleven twelve")
        let view = ProjectView(
            today: Self.today, style: Style(isEnabled: false), width: 40, timeZone: Zone(identifier: "Asia/Tokyo")!)
        #expect(
            view.render(project) == """
                Bare
                  ID        recBBBBBBBBBBBBBB
                  Status    open
                  Due       —
                  Kickoff   —
                  Category  —
                  Lead      —
                  Team      —
                  Clients   —
                  Created   2026-11-22 (tomorrow)
                  Notes     one two three four five six
                            seven eight nine ten eleven
                            twelve

                """)
    }
}

@Suite(.timeLimit(.minutes(2)))
struct StatusLineTests {
    @Test func aWaitIsNotHiddenByProgressUntilItIsCleared() {
        let written = Recorder()
        let line = StatusLine(write: written.append)
        line.show("progress 1")
        line.show("waiting 3s", isWait: true)
        line.show("progress 2")
        line.show("waiting 2s", isWait: true)
        line.clear()
        line.show("progress 3")
        let erase = "\r\u{1B}[K"
        #expect(
            written.text
                == [erase + "progress 1", erase + "waiting 3s", erase + "waiting 2s", erase, erase + "progress 3"]
                .joined())
    }

    @Test func writesThroughTheWrappedOutputClearTheLineFirst() throws {
        let written = Recorder()
        let line = StatusLine(write: written.append)
        let output = line.clearing(
            Output(standardOutput: { written.append("out:" + $0) }, standardError: { written.append("err:" + $0) }))
        line.show("read 100 projects…")
        try output.standardOutput("row\n")
        output.standardError("note\n")
        #expect(written.text == "\r\u{1B}[Kread 100 projects…\r\u{1B}[Kout:row\nerr:note\n")
    }

    @Test func ctrlCEndingTrackerRunsItsCleanupAndAFirstOneOnlyAsksWhenACommandCanStop() {
        let cleaned = Recorder()
        let interruption = Interruption()
        interruption.beforeEnding { cleaned.append("cleared") }
        #expect(interruption.handleSignal(), "by default Ctrl-C ends tracker at once")
        interruption.end()
        #expect(cleaned.text == "cleared")
        let graceful = Interruption()
        graceful.stopBetweenRequests(notice: nil)
        #expect(!graceful.handleSignal() && graceful.isRequested, "the first asks the command to stop")
        #expect(graceful.handleSignal(), "a second ends tracker at once")
    }
}

@Suite(.timeLimit(.minutes(2)))
struct WrapTests {
    @Test func wrapsNotesAtSpacesWithinTheWidth() {
        #expect(TextCells.wrap("one two three four", to: 9) == ["one two", "three", "four"])
        #expect(TextCells.wrap("", to: 9) == [""])
        #expect(TextCells.wrap("unbreakablewordhere ok", to: 9) == ["unbreakablewordhere", "ok"])
    }
}
