import Foundation
import Testing

@testable import TrackerModel
@testable import tracker
@testable import TrackerOperations

/// The text form of `tracker edit`: what it shows, what it reads back, and what it writes after reading again.
@Suite(.timeLimit(.minutes(2)))
struct EditFormTests {
    static let table = try! BaseSchema(
        airtable: try! JSONParser.parse(
            #"""
            {"tables":[{"id":"tbl","name":"Design projects","fields":[
             {"id":"f0","name":"Name","type":"singleLineText"},
             {"id":"f1","name":"Budget","type":"currency","options":{"precision":2,"symbol":"€"}},
             {"id":"f2","name":"Progress","type":"percent","options":{"precision":1}},
             {"id":"f3","name":"Reviewed","type":"checkbox"},
             {"id":"f4","name":"Tags","type":"multipleSelects","options":{"choices":[{"name":"web"},{"name":"print"}]}},
             {"id":"f5","name":"Days","type":"formula","options":{"result":{"type":"number"}}},
             {"id":"f6","name":"Launch","type":"dateTime"},
             {"id":"f7","name":"Brief","type":"multilineText"},
             {"id":"f8","name":"Images","type":"multipleAttachments"},
             {"id":"f9","name":"Due date","type":"date"},
             {"id":"f10","name":"Notes","type":"multilineText"}],"views":[]}]}
            """#)
    ).tables[0]

    static let layout = TableLayout(fields: .template, table: table, schema: nil)

    static let project = Project(
        id: "recA", createdTime: "2026-01-01T00:00:00.000Z", name: "Logo, refresh", category: "Brand identity",
        kickoff: CalendarDate("2026-11-02"), due: CalendarDate("2026-12-01"),
        lead: Collaborator(id: "usr1", name: "Ana", email: "ana@example.com"),
        team: [Collaborator(id: "usr2", email: "sam@example.com"), Collaborator(id: "usr3", name: "Lee")],
        clients: ["recC1", "recC2"], notes: "Line one\n# a heading, not a comment\nName: not a field",
        otherFields: [
            FieldValue("Budget", .number(1250.5)), FieldValue("Progress", .number(0.125)),
            FieldValue("Tags", .array([.string("web"), .string("print")])), FieldValue("Days", .number(3)),
            FieldValue("Launch", .string("2026-12-01T14:30:00.000Z")), FieldValue("Brief", .string("First\nSecond")),
        ])

    static let form = EditForm(
        project: project, layout: layout, recordNames: ["recC1": "Acme", "recC2": "Smith, Jones & Co"])

    @Test func theFormHasEachWritableFieldInTheFormsTheFlagsTake() {
        let text = Self.form.text()
        let fields = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(
            Array(fields.prefix(14)) == [
                "Name: Logo, refresh", "Category: Brand identity", "Complete: no", "Kickoff: 2026-11-02",
                "Due: 2026-12-01", "Lead: ana@example.com", "Team: sam@example.com, Lee",
                // A name with a comma would read back as two clients: that one goes by its id.
                "Client: Acme, recC2", "Budget: 1250.5", "Progress: 0.125", "Reviewed: no", "Tags: web, print",
                "Launch: 2026-12-01T14:30:00.000Z", "Brief: First",
            ])
        #expect(text.contains("\n  Second\nNotes:\nLine one\n# a heading, not a comment\nName: not a field\n"))
        // Computed and attachment fields cannot be written: they are not in the form.
        #expect(!text.contains("Days:") && !text.contains("Images:"))
        #expect(text.hasPrefix("# Editing \"Logo, refresh\" (recA)."))
    }

    @Test func theFormReadBackAsItWasChangesNothing() throws {
        let values = try #require(try Self.form.read(Self.form.text()))
        #expect(Self.form.changes(in: values).isEmpty)
        #expect(values["Notes"] == Self.project.notes)
        #expect(values["Brief"] == "First\nSecond")
    }

    @Test func eachOwnValueReadsBackAsTheSameCell() throws {
        for field in Self.table.fields where FieldInput.refusal(field) == nil && field.type != "multipleSelects" {
            guard let value = Self.project.otherFields.first(where: { $0.name == field.name })?.value else { continue }
            let text = EditForm.text(value, of: field) { $0.joined(separator: ", ") }
            let read = FieldInput.read(
                text, for: field, today: CalendarDate("2026-11-24")!, timeZone: Zone(identifier: "UTC")!)
            let expected: JSONValue =
                field.type == "dateTime" ? .string(ISOInstant.text(ISOInstant.date(value.stringValue!)!)) : value
            #expect(read == .success(.ready(expected)), "\(field.name): \(text)")
        }
    }

    @Test func changedLinesAreFoundAndDeletedOnesLeftAlone() throws {
        var text = Self.form.text()
        text = text.replacing("Due: 2026-12-01", with: "Due:   friday  ").replacing("Kickoff: 2026-11-02\n", with: "")
        text = text.replacing("Budget: 1250.5", with: "budget:") + "More notes\n"
        let values = try #require(try Self.form.read(text))
        let changes = Self.form.changes(in: values).map { "\($0.entry.label)=\($0.value)" }
        #expect(changes == ["Due=friday", "Budget=", "Notes=\(Self.project.notes!)\nMore notes"])
    }

    @Test func whatCannotBeReadIsSaidByLine() throws {
        let text = "Name: Logo\nColour: red\njust words\nName: again\n"
        #expect(throws: EditForm.Problems.self) { try Self.form.read(text) }
        do {
            _ = try Self.form.read(text)
        } catch {
            #expect(error.messages(offset: 4).first == "line 6: the form has no field \"Colour\"")
            #expect(
                error.messages() == [
                    "line 2: the form has no field \"Colour\"", "line 3 is not \"Field: value\": just words",
                    "line 4: Name is given twice",
                ])
        }
        #expect(try Self.form.read("# only comments\n\n#\n") == nil)
    }

    @Test func problemsGoAboveTheFormOneALine() {
        let lines = EditForm.problemLines(["Due: \"x\" is not a date", "Tags: a\u{1B}b"])
        #expect(lines == "# error: Due: \"x\" is not a date\n# error: Tags: a^[b\n#\n")
    }

    /// Three lines changed here; Airtable changed one of them too, another to the same value, and one line not here.
    @Test func onlyWhatChangedHereAndNotThereIsWrittenAndADifferenceIsAConflict() throws {
        var there = Self.project
        there.due = CalendarDate("2026-12-20")
        there.notes = "Changed there"
        let now = EditForm(project: there, layout: Self.layout, recordNames: [:])
        func line(_ label: String, _ value: String, _ cell: (FieldMap.Word, JSONValue)) -> (
            entry: EditForm.Entry, value: String, write: ProjectWrite
        ) {
            (Self.form.entries.first { $0.label == label }!, value, ProjectWrite([cell]))
        }
        let kickoff = line("Kickoff", "2026-11-09", (.kickoff, .string("2026-11-09")))
        let sameDue = line("Due", "2026-12-20", (.due, .string("2026-12-20")))
        let written = try Edit.stillToWrite([kickoff, sameDue], opened: Self.form, there: now)
        #expect(written == ProjectWrite([(.kickoff, .string("2026-11-09"))]))

        let otherDue = line("Due", "2026-12-24", (.due, .string("2026-12-24")))
        #expect(throws: AppError.editConflict([#"Due is "2026-12-20" in Airtable, "2026-12-24" here"#])) {
            try Edit.stillToWrite([kickoff, otherDue], opened: Self.form, there: now)
        }
        let conflict = AppError.editKept(.editConflict(["x"]), path: "/s/edit.txt")
        #expect(conflict.exitCode == .failure && conflict.hint?.contains("kept in /s/edit.txt") == true)
        #expect(AppError.editKept(.usage("Due: no", command: "edit"), path: "/p").exitCode == .usage)
    }
}
