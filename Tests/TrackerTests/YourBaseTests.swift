import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

/// The pieces behind "Your base as it is": typed values, field settings against a schema, reading and showing the
/// base's own fields, and what is remembered between commands.
@Suite(.timeLimit(.minutes(2)))
struct FieldInputTests {
    static let today = CalendarDate(year: 2026, month: 11, day: 22)!
    static let utc = Zone(identifier: "UTC")!

    static func field(_ type: String, _ options: String? = nil) -> BaseSchema.Field {
        BaseSchema.Field(
            id: "fldX", name: "X", type: type, options: options.map { try! JSONParser.parse($0) })
    }

    static func read(_ text: String, _ type: String, _ options: String? = nil) -> Result<TypedValue, FieldProblem> {
        FieldInput.read(text, for: field(type, options), today: today, timeZone: utc)
    }

    @Test(
        arguments: [
            ("1250", "number", nil, JSONValue.number(1250)),
            ("1,250.5", "number", nil, .number(1250.5)),
            ("-3e2", "number", nil, .number(-300)),
            ("$1,250.50", "currency", #"{"symbol":"$","precision":2}"#, .number(1250.5)),
            ("-$5", "currency", #"{"symbol":"$"}"#, .number(-5)),
            ("12 €", "currency", #"{"symbol":"€"}"#, .number(12)),
            ("12%", "percent", nil, .number(0.12)),
            ("0.12", "percent", nil, .number(0.12)),
            ("4", "rating", #"{"max":5}"#, .number(4)),
            ("10", "rating", #"{"max":10}"#, .number(10)),
            ("90", "duration", nil, .number(90)),
            ("1:30", "duration", nil, .number(5400)),
            ("1:30:15", "duration", nil, .number(5415)),
            ("YES", "checkbox", nil, .bool(true)),
            ("0", "checkbox", nil, .bool(false)),
            ("friday", "date", nil, .string("2026-11-27")),
            ("2026-2-3", "date", nil, .string("2026-02-03")),
            ("2026-12-01T14:30:00Z", "dateTime", nil, .string("2026-12-01T14:30:00.000Z")),
            ("2026-12-01T14:30:00+02:00", "dateTime", nil, .string("2026-12-01T12:30:00.000Z")),
            ("2026-12-01 09:15", "dateTime", nil, .string("2026-12-01T09:15:00.000Z")),
            ("tomorrow", "dateTime", nil, .string("2026-11-23T00:00:00.000Z")),
            ("ana@example.com", "email", nil, .string("ana@example.com")),
            ("https://example.com/x?y=1", "url", nil, .string("https://example.com/x?y=1")),
            ("example.com/brief", "url", nil, .string("example.com/brief")),
            ("+1 (415) 555-0100 x12", "phoneNumber", nil, .string("+1 (415) 555-0100 x12")),
            ("two\nlines", "multilineText", nil, .string("two\nlines")),
            ("  kept  ", "singleLineText", nil, .string("  kept  ")),
            ("978-3", "barcode", nil, .object([("text", .string("978-3"))])),
        ] as [(String, String, String?, JSONValue)])
    func valuesOfEveryWritableTypeAreReadAsAirtableStoresThem(
        text: String, type: String, options: String?, expected: JSONValue
    ) throws {
        #expect(try Self.read(text, type, options).get() == .ready(expected))
    }

    @Test(
        arguments: [
            ("lots", "number", nil, "is not a number"),
            ("nan", "number", nil, "is not a number"),
            ("0x10", "number", nil, "is not a number"),
            ("12,5", "currency", nil, "is not an amount"),
            ("1,25,000", "number", nil, "is not a number"),
            ("12 apples", "percent", nil, "is not a percentage"),
            ("0", "rating", #"{"max":5}"#, "is not a rating from 1 to 5"),
            ("6", "rating", #"{"max":5}"#, "is not a rating from 1 to 5"),
            ("2.5", "rating", nil, "is not a rating from 1 to 5"),
            ("1:60", "duration", nil, "is not a duration"),
            ("-5", "duration", nil, "is not a duration"),
            ("maybe", "checkbox", nil, "is not yes, no, true, false, 1 or 0"),
            ("2026-02-30", "date", nil, "is not a real date"),
            ("soon", "date", nil, "is not a date"),
            ("2026-12-01T25:00", "dateTime", nil, "is not a date and time"),
            ("ana", "email", nil, "is not an email address"),
            ("ana@example", "email", nil, "is not an email address"),
            ("a b", "url", nil, "is not a URL"),
            ("localhost", "url", nil, "is not a URL"),
            ("call me", "phoneNumber", nil, "is not a phone number"),
            ("bell\u{7}", "singleLineText", nil, "holds a control character (^G)"),
            ("line\nbreak", "singleLineText", nil, "it must be one line"),
            ("x", "formula", nil, "X is a formula field, which Airtable computes"),
            ("x", "autoNumber", nil, "X is a autonumber field, which Airtable computes"),
            ("x", "multipleLookupValues", nil, "X is a lookup field, which Airtable computes"),
            ("x", "multipleAttachments", nil, "X is an attachments field, which tracker cannot set"),
            ("x", "someNewType", nil, "X is a someNewType field, which tracker cannot set"),
        ] as [(String, String, String?, String)])
    func aValueOfTheWrongFormIsAProblemNamingTheForm(text: String, type: String, options: String?, message: String) {
        guard case .failure(let problem) = Self.read(text, type, options) else {
            Issue.record("\(text) was accepted for \(type)")
            return
        }
        #expect(problem.message.contains(message), "\(problem.message)")
    }

    @Test func selectsPeopleAndLinksAreLeftToBeMatchedAgainstTheBase() throws {
        #expect(try Self.read(" high ", "singleSelect").get() == .choice("high"))
        #expect(try Self.read("web, print,,", "multipleSelects").get() == .choices(["web", "print"]))
        #expect(
            try Self.read("ana@x.io, Sam", "multipleCollaborators").get()
                == .people(["ana@x.io", "Sam"], multiple: true))
        #expect(
            try Self.read("Acme, recABCDEFGHIJKLMN", "multipleRecordLinks", #"{"linkedTableId":"tblC"}"#).get()
                == .links(["Acme", "recABCDEFGHIJKLMN"], table: "tblC"))
        guard case .failure = Self.read("a, b", "singleCollaborator") else {
            Issue.record("two people for one collaborator")
            return
        }
        // In an import cell lists are separated by ";".
        #expect(
            try FieldInput.read(
                "web;print", for: Self.field("multipleSelects"), separator: ";", today: Self.today, timeZone: Self.utc
            ).get()
                == .choices(["web", "print"]))
    }

    @Test func jsonCellsMustAlreadyHaveTheFieldsShape() throws {
        func read(_ json: String, _ type: String) -> Result<TypedValue, FieldProblem> {
            FieldInput.read(
                json: try! JSONParser.parse(json), for: Self.field(type), today: Self.today, timeZone: Self.utc)
        }
        #expect(try read("12.5", "currency").get() == .ready(.number(12.5)))
        #expect(try read("true", "checkbox").get() == .ready(.bool(true)))
        #expect(try read(#"["web"]"#, "multipleSelects").get() == .choices(["web"]))
        #expect(
            try read(#"{"name":"Ana","email":"ana@x.io"}"#, "singleCollaborator").get()
                == .people(["ana@x.io"], multiple: false))
        #expect(try read(#""12%""#, "percent").get() == .ready(.number(0.12)), "text is read as typed")
        for (json, type) in [("true", "number"), ("3", "checkbox"), (#"[1]"#, "multipleSelects"), ("7", "rating")] {
            guard case .failure = read(json, type) else {
                Issue.record("\(json) accepted for \(type)")
                continue
            }
        }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct FieldSettingsTests {
    static func table(_ fields: [(String, String, String?)], primary: String = "fldName") -> BaseSchema.Table {
        BaseSchema.Table(
            id: "tblP", name: "Design projects", primaryFieldID: primary,
            fields: fields.enumerated().map { index, field in
                BaseSchema.Field(
                    id: index == 0 ? "fldName" : "fld\(index)", name: field.0, type: field.1,
                    options: field.2.map { try! JSONParser.parse($0) })
            }, views: [])
    }

    static let status = #"{"choices":[{"name":"Todo"},{"name":"In progress"},{"name":"Done"}]}"#

    @Test func anUnmentionedTemplateFieldTheTableLacksIsAbsent() throws {
        let table = Self.table([
            ("Name", "singleLineText", nil), ("Due date", "date", nil), ("Notes", "multilineText", nil),
        ])
        let map = try FieldSettings().resolve(in: table)
        #expect(map[.due] == "Due date")
        #expect(map[.kickoff] == nil && map[.category] == nil && map.completion == nil)
        #expect(map.absent == [.category, .complete, .kickoff, .lead, .team, .client])
    }

    @Test func theNameIsAlwaysThePrimaryField() throws {
        let table = Self.table([("Project", "singleLineText", nil), ("Name", "singleLineText", nil)])
        #expect(try FieldSettings().resolve(in: table).name == "Project")
        #expect(throws: AppError.self) { try FieldSettings(words: [.name: .named("Name")]).resolve(in: table) }
        #expect(throws: AppError.self) { try FieldSettings(words: [.name: .absent]).resolve(in: table) }
    }

    @Test func aStatusSelectKeepsCompletionInTheBasesSpelling() throws {
        let table = Self.table([("Name", "singleLineText", nil), ("Status", "singleSelect", Self.status)])
        let settings = FieldSettings(completionSelect: .init(field: "Status", done: "done", open: "in PROGRESS"))
        #expect(
            try settings.resolve(in: table).completion == .select(field: "Status", done: "Done", open: "In progress"))
        let wrong = FieldSettings(completionSelect: .init(field: "Status", done: "Finished", open: nil))
        #expect(throws: AppError.self) { try wrong.resolve(in: table) }
        // A select left as the template's "Complete" needs to say which choice means done.
        let retyped = Self.table([("Name", "singleLineText", nil), ("Complete", "singleSelect", Self.status)])
        let error = try #require(Result { try FieldSettings().resolve(in: retyped) }.failure as? AppError)
        #expect(error.exitCode == .configuration)
        #expect(
            error.hint?.contains(#""complete": {"field": "Complete", "done": "<one of "Todo", "In progress", "Done">""#)
                == true)
    }

    @Test func aMappedFieldMustExistWithATypeTrackerCanUse() {
        let table = Self.table([("Name", "singleLineText", nil), ("Deadline", "dateTime", nil)])
        #expect(throws: AppError.missingField(word: "due", field: "Due by", table: "Design projects")) {
            try FieldSettings(words: [.due: .named("Due by")]).resolve(in: table)
        }
        let mistyped = Result { try FieldSettings(words: [.due: .named("Deadline")]).resolve(in: table) }
        #expect((mistyped.failure as? AppError)?.message.contains("is a dateTime field") == true)
    }

    @Test func withoutTheSchemaTheFileAloneSaysWhatIsAbsent() {
        let map = FieldSettings(words: [.kickoff: .absent, .due: .named("Deadline")]).assumed
        #expect(map[.kickoff] == nil && map[.due] == "Deadline" && map[.notes] == "Notes")
        #expect(map.completion == .checkbox(field: "Complete"))
    }
}

@Suite(.timeLimit(.minutes(2)))
struct OwnFieldsTests {
    @Test func jsonKeepsMemberOrderEscapesAndNumbers() throws {
        let text = #"{"b":1,"a":[true,null,-2.5e1,"\u00e9\ud83d\ude80\n\"q\""],"c":{}}"#
        let value = try JSONParser.parse(text)
        #expect(value.objectMembers?.map(\.0) == ["b", "a", "c"])
        #expect(value["a"]?.arrayValue?[2] == .number(-25))
        #expect(value["a"]?.arrayValue?[3] == .string("é🚀\n\"q\""))
        #expect(value.serialized() == #"{"b":1,"a":[true,null,-25,"é🚀\n\"q\""],"c":{}}"#)
        for bad in ["", "{", #"{"a"}"#, "[1,]", "01x", #""\x""#, "tru", String(repeating: "[", count: 300), "1 2"] {
            #expect(throws: JSONParser.Failure.self, "\(bad)") { try JSONParser.parse(bad) }
        }
    }

    @Test func recordsKeepTheBasesOwnFieldsInOrderAndPeopleAsNameAndEmail() throws {
        let record = #"""
            {"id":"recA","createdTime":"2026-01-01T00:00:00.000Z","fields":{"Name":"A","Budget":12.5,
             "Owner":{"id":"usr1","email":"ana@x.io","name":"Ana"},"Due date":"2026-12-01",
             "Images":[{"id":"att1","url":"https://x/y.png","filename":"y.png"}],"Status":"Done"}}
            """#
        let map = FieldMap(
            names: [.name: "Name", .due: "Due date"], completion: .select(field: "Status", done: "Done", open: nil))
        let project = try RecordDecoding.project(Data(record.utf8), map: map)
        #expect(project.isComplete)
        #expect(project.otherFields.map(\.name) == ["Budget", "Owner", "Images"])
        #expect(project.otherFields[1].value.serialized() == #"{"name":"Ana","email":"ana@x.io"}"#)
        #expect(
            project.otherFields[2].value["url"] == nil && project.otherFields[2].value.arrayValue?.first?["url"] != nil)
    }

    @Test func theBasesFieldsAreShownByType() throws {
        let schema = try BaseSchema(
            airtable: try JSONParser.parse(
                #"""
                {"tables":[{"id":"tbl","name":"T","fields":[
                 {"id":"f1","name":"Budget","type":"currency","options":{"precision":2,"symbol":"€"}},
                 {"id":"f2","name":"Progress","type":"percent","options":{"precision":1}},
                 {"id":"f3","name":"Rating","type":"rating","options":{"max":10}},
                 {"id":"f4","name":"Reviewed","type":"checkbox"},
                 {"id":"f5","name":"Time","type":"duration","options":{"durationFormat":"h:mm:ss"}},
                 {"id":"f6","name":"Tags","type":"multipleSelects"},
                 {"id":"f7","name":"Days","type":"formula","options":{"result":{"type":"number","options":{"precision":1}}}},
                 {"id":"f8","name":"Launch","type":"dateTime"},
                 {"id":"f9","name":"Links","type":"multipleRecordLinks"}],"views":[]}]}
                """#))
        let formatter = FieldFormatter(
            table: schema.tables[0], timeZone: Zone(identifier: "Europe/Paris")!, recordNames: ["recA": "Acme"])
        #expect(formatter.text(.number(-1234567.891), field: "Budget") == "-€1,234,567.89")
        #expect(formatter.text(.number(0.125), field: "Progress") == "12.5%")
        #expect(formatter.text(.number(7), field: "Rating") == "7/10")
        #expect(formatter.text(nil, field: "Reviewed") == "no")
        #expect(formatter.text(.bool(true), field: "Reviewed") == "yes")
        #expect(formatter.text(.number(3725), field: "Time") == "1:02:05")
        #expect(formatter.text(.array([.string("web"), .string("print")]), field: "Tags") == "web, print")
        #expect(formatter.text(.number(-3), field: "Days") == "-3.0")
        #expect(formatter.text(.string("2026-12-01T14:30:00.000Z"), field: "Launch") == "2026-12-01 15:30")
        #expect(formatter.text(.array([.string("recA"), .string("recB")]), field: "Links") == "Acme, recB")
        #expect(formatter.text(nil, field: "Tags") == nil)
        #expect(
            FieldFormatter.plain(.array([.object([("name", .string("A")), ("email", .string("a@x.io"))])])) == "a@x.io")
    }

    @Test func whatIsRememberedRoundTripsAndGoesStaleAfterAnHour() throws {
        var remembered = RememberedBase(readAt: 1_000_000, schema: try JSONParser.parse(#"{"tables":[]}"#))
        remembered.people["sam epps"] = .object([("email", .string("sam@x.io"))])
        remembered.records["tblC"] = ["recA": "Acme"]
        let read = try #require(RememberedBase(data: remembered.data))
        #expect(read == remembered)
        #expect(read.isFresh(at: 1_000_000 + 3599))
        #expect(!read.isFresh(at: 1_000_000 + 3600))
        #expect(!read.isFresh(at: 1_000_000 - 1), "a clock set back makes it stale, not eternal")
        #expect(RememberedBase(data: Data("{\"version\":2}".utf8)) == nil)
        let name = RememberedBase.fileName(
            endpoint: URL(string: "https://api.airtable.com")!, baseID: "appABC", token: Fixture.token)
        #expect(!name.contains(Fixture.token) && !name.contains("pat"))
        #expect(
            name
                != RememberedBase.fileName(
                    endpoint: URL(string: "https://api.airtable.com")!, baseID: "appABC", token: "other"))
    }

    @Test func importTellsUnchangedValuesWhateverTheirShape() {
        #expect(ImportPlan.same(.null, .bool(false)))
        #expect(ImportPlan.same(.array([]), .null))
        #expect(ImportPlan.same(.array([.string("b"), .string("a")]), .array([.string("a"), .string("b")])))
        #expect(
            ImportPlan.same(
                .object([("email", .string("A@x.io"))]),
                .object([("name", .string("A")), ("email", .string("a@x.io"))])))
        #expect(ImportPlan.same(.string("2026-12-01T14:30:00Z"), .string("2026-12-01T14:30:00.000Z")))
        #expect(!ImportPlan.same(.number(1), .number(2)))
        #expect(!ImportPlan.same(.string("x"), .null))
        let project = Project(id: "recA", createdTime: "", name: "A", isComplete: false)
        let select = FieldMap.Completion.select(field: "Status", done: "Done", open: "Doing")
        #expect(ImportPlan.holds(project, .word(.complete), .string("Doing"), completion: select))
        #expect(!ImportPlan.holds(project, .word(.complete), .string("Done"), completion: select))
    }
}

extension Result {
    var failureError: Failure? { if case .failure(let error) = self { error } else { nil } }
}
