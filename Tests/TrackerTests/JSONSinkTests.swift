import Foundation
import Testing

@testable import TrackerModel
@testable import TrackerOperations

/// One exporter for each JSON shape, written once against a sink: what `mcp` gives as structured content is the very
/// value `--json` prints (broken by a sink that nests or drops a member: the values differ).
@Suite struct JSONSinkTests {
    static let today = CalendarDate("2026-11-21")!
    static let project = Project(
        id: "recAAAAAAAAAAAAAA", createdTime: "2026-01-01T00:00:00.000Z", name: "Tab\there,\n\"quoted\"",
        category: "Brand identity", isComplete: false, kickoff: CalendarDate("2026-10-01"),
        due: CalendarDate("2026-11-20"), lead: Collaborator(name: "Gal Samari", email: "g@example.com"),
        team: [Collaborator(name: "Ana"), Collaborator(email: "b@example.com")], clients: ["recCLIENT00000001"],
        notes: "é🎉",
        otherFields: [
            FieldValue("Budget", .number(1250.5)), FieldValue("Tags", .array([.string("web"), .array([])])),
            FieldValue("Owner", .object([("name", .string("Ana")), ("empty", .object([]))])),
        ])
    static let task = ProjectTask(
        id: "recTASK0000000001", createdTime: "2026-02-01T00:00:00.000Z", name: "Sketch",
        projects: ["recAAAAAAAAAAAAAA", "recBBBBBBBBBBBBBB"], isComplete: true, estimate: 2.5,
        assignee: Collaborator(id: "usrA", name: "Ana", email: nil), notes: nil,
        otherFields: [FieldValue("Stage", .string("Draft"))])

    static func parsed(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    @Test func aProjectsValueIsItsPrintedObject() throws {
        let progress = TaskProgress([Self.task])
        #expect(
            try Self.parsed(Self.project.jsonText(today: Self.today, tasks: progress))
                == Self.project.jsonValue(today: Self.today, tasks: progress))
        #expect(try Self.parsed(Self.project.jsonText(today: Self.today)) == Self.project.jsonValue(today: Self.today))
    }

    @Test func aTasksValueIsItsPrintedObject() throws {
        let rows = TaskRows([Self.task], projects: [Self.project.id: Self.project], today: Self.today)
        #expect(try Self.parsed(rows.json(Self.task)) == rows.jsonValue(Self.task))
        let alone = TaskRows([Self.task], projects: [:], today: Self.today)
        #expect(try Self.parsed(alone.json(Self.task)) == alone.jsonValue(Self.task))
    }

    @Test func statusAndTheDigestAreTheirPrintedObjects() throws {
        let rows = TaskRows([Self.task], projects: [Self.project.id: Self.project], today: Self.today)
        let status = StatusReport(
            user: Collaborator(id: "usrA", name: "Ana", email: "a@example.com"),
            projects: [Self.project, Self.project],
            tasks: rows, newProjects: [], newTasks: [Self.task])
        #expect(try Self.parsed(status.jsonText(today: Self.today)) == status.jsonValue(today: Self.today))
        var digest = ProjectDigest(date: Self.today, days: 7, timeZone: Zone(identifier: "UTC")!)
        digest.add(Self.project)
        digest.sort()
        let document = ReportDocument(digest: digest, tableName: "Design projects", grouping: .none, tasks: rows)
        #expect(try Self.parsed(document.json(today: Self.today)) == document.jsonValue(today: Self.today))
    }

    /// Inside containers the sink opened, members and elements are separated by it; what a caller writes around them
    /// (a listing's own brackets and commas) is left as it is.
    @Test func theWriterSeparatesWhatItOpensAndNothingElse() {
        var json = JSONWriter()
        json.raw("[")
        Self.project.writeJSON(today: Self.today, to: &json)
        json.raw(",")
        Self.project.writeJSON(today: Self.today, to: &json)
        json.raw("]")
        #expect(json.text.contains("}},{\"id\""))
        #expect(
            (try? JSONParser.parse(json.text)).map { if case .array(let items) = $0 { items.count } else { 0 } } == 2)
    }
}
