import Foundation
import Testing

@testable import TrackerModel
@testable import TrackerSystem
@testable import tracker
@testable import TrackerStdio
@testable import TrackerMCP
@testable import TrackerOperations

/// The MCP face's pure parts: messages read, tools made from the registry, arguments turned into command lines, the
/// file root.
@Suite struct MCPUnitTests {
    static func line(_ text: String) -> JSONRPC.Incoming { JSONRPC.read(Data(text.utf8)) }

    @Test(arguments: [
        ("nonsense", JSONRPC.Code.parseError),
        (#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, .invalidRequest),
        (#"{"jsonrpc":"2.0","id":1}"#, .invalidRequest),
        (#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, .invalidRequest),
        (#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, .invalidRequest),
        (#"{"jsonrpc":"2.0","id":1,"method":7}"#, .invalidRequest),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#, .invalidRequest),
        ("42", .invalidRequest),
    ])
    func malformedLinesAreTheRightError(text: String, code: JSONRPC.Code) {
        guard case .invalid(_, let found, _) = Self.line(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(found == code)
    }

    @Test func requestsNotificationsAndAnswersAreTold() {
        #expect(
            Self.line(#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#)
                == .request(id: .string("a"), method: "tools/list", params: nil))
        #expect(
            Self.line(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
                == .notification(method: "notifications/initialized", params: nil))
        #expect(Self.line(#"{"jsonrpc":"2.0","id":3,"result":{}}"#) == .response(id: .number(3), result: .object([])))
        #expect(
            Self.line(#"{"jsonrpc":"2.0","id":"tracker-1","error":{"code":-1,"message":"no"}}"#)
                == .response(id: .string("tracker-1"), result: nil))
        // An invalid request keeps its id when it has a usable one.
        #expect(
            Self.line(#"{"jsonrpc":"2.0","id":9}"#)
                == .invalid(id: .number(9), .invalidRequest, "Invalid Request: no \"method\""))
    }

    @Test func everyMessageIsOneLine() {
        let answer = JSONRPC.result(id: .number(1), .object([("text", .string("two\nlines\u{2028}and a \"quote\""))]))
        #expect(!answer.serialized().contains("\n"))
    }

    /// One registry: every flag of a tool's command is an argument of the tool, unless the face gives it itself.
    @Test func aCommandsFlagsAreItsToolsArguments() throws {
        for tool in MCPTool.all {
            let properties = try #require(tool.inputSchema["properties"]?.objectMembers).map(\.0)
            for flag in tool.spec.flags
            where !MCPTool.faceFlags.contains(flag.name) && !tool.withheld.contains(flag.name) {
                guard tool.onlyFlags?.contains(flag.name) ?? true else { continue }
                #expect(properties.contains(MCPTool.argumentName(flag.name)), "\(tool.name) lacks \(flag.name)")
            }
            #expect(
                tool.description.trimmingCharacters(in: ["."]).components(separatedBy: ". ").count <= 2,
                "\(tool.name): two sentences at most")
            #expect(tool.name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" })
        }
    }

    @Test func flagTypesBecomeSchemaTypes() {
        func type(_ tool: String, _ argument: String) -> String? {
            MCPTool.all.first { $0.name == tool }?.inputSchema["properties"]?[argument]?["type"]?.stringValue
        }
        #expect(type("list_projects", "due_within") == "integer")
        #expect(type("list_projects", "overdue") == "boolean")
        #expect(type("list_projects", "due_before") == "string")
        #expect(type("add_project", "team") == "array")
        #expect(type("add_task", "estimate") == nil, "a number or a string: 1.5, 2d and 1w")
        #expect(
            MCPTool.all.first { $0.name == "add_task" }?.inputSchema["properties"]?["estimate"]?["type"]
                == .array([.string("number"), .string("string")]))
        #expect(type("list_projects", "limit") == "integer")
        // One shape for one meaning: what to empty is an array wherever it is taken.
        #expect(type("update_project", "clear") == "array")
        #expect(type("update_task", "clear") == "array")
    }

    /// A whole number's range is said once, on its flag: the parser refuses what the tool schema excludes and takes
    /// its bounds (`due_within` said 0 in the schema while the command line refused it).
    @Test func aWholeNumbersRangeIsTheSameInTheSchemaAndTheParser() throws {
        #expect(
            MCPTool.all.first { $0.name == "list_projects" }?.inputSchema["properties"]?["due_within"]?["minimum"]
                == .number(1))
        var checked = 0
        for spec in CommandRegistry.specs {
            for flag in spec.flags where flag.type == .whole {
                let schema = MCPTool.schema(of: flag)
                #expect(schema["minimum"] == .number(Double(flag.minimum)), "\(spec.name) \(flag.name)")
                #expect(schema["maximum"] == .number(Double(flag.maximum)), "\(spec.name) \(flag.name)")
                func parsed(_ value: Int) throws -> Int? {
                    try ScannedArguments(command: spec, values: [flag.name: ["\(value)"]]).wholeNumber(flag.name)
                }
                #expect(try parsed(flag.minimum) == flag.minimum)
                #expect(try parsed(flag.maximum) == flag.maximum)
                #expect(throws: AppError.self) { try parsed(flag.minimum - 1) }
                #expect(throws: AppError.self) { try parsed(flag.maximum + 1) }
                checked += 1
            }
        }
        #expect(checked >= 8, "--due-within, --days, --limit, --every, --weeks…")
    }

    @Test func everyArgumentIsTakenAsItsSchemaSaysAndAsAnAssistantWouldSendIt() throws {
        // A value of the schema's own type for every argument of every tool: none is refused for its type.
        for tool in MCPTool.all {
            let properties = tool.inputSchema["properties"]?.objectMembers ?? []
            for (name, schema) in properties {
                let types: [String] =
                    schema["type"]?.stringValue.map { [$0] } ?? schema["type"]?.arrayValue?.compactMap(\.stringValue)
                    ?? []
                for type in types {
                    let value: String =
                        switch type {
                        case "integer": "1"
                        case "number": "1.5"
                        case "boolean": name == "confirm" ? "true" : "false"
                        case "array": #"["notes"]"#
                        default: schema["enum"]?.arrayValue?.first.map { $0.serialized() } ?? #""2026-12-01""#
                        }
                    do {
                        _ = try ToolArguments(tool: tool, root: FileRoot(path: "/srv/share", refusal: nil)).plan(
                            try JSONParser.parse(#"{"\#(name)":\#(value)}"#))
                    } catch let error as AppError {
                        #expect(
                            !error.message.contains("must be"), "\(tool.name).\(name) as \(type): \(error.message)")
                    }
                }
            }
        }
        // What an assistant told "an estimate in days" sends: a number; and "2d" still works.
        #expect(try Self.plan("add_task", #"{"project":"P","name":"T","estimate":1}"#).named.all("--estimate") == ["1"])
        #expect(
            try Self.plan("add_task", #"{"project":"P","name":"T","estimate":"2d"}"#).named.all("--estimate") == ["2d"])
        #expect(
            try Self.plan("update_task", #"{"task":"T","clear":["notes","estimate"]}"#).named.all("--clear") == [
                "notes", "estimate",
            ])
    }

    static func plan(_ tool: String, _ arguments: String, root: FileRoot = FileRoot(path: "/srv/share", refusal: nil))
        throws -> ToolArguments.Plan
    {
        let tool = try #require(MCPTool.all.first { $0.name == tool })
        return try ToolArguments(tool: tool, root: root).plan(try JSONParser.parse(arguments))
    }

    /// A tool's arguments become the command's named arguments: flags with their values, and the positional words
    /// (a name that starts with a dash is a word, never a flag); no command line is made.
    @Test func argumentsBecomeTheCommandsNamedArguments() throws {
        func named(_ tool: String, _ arguments: String) throws -> (values: [String: [String]], words: [String]) {
            let plan = try Self.plan(tool, arguments)
            return (plan.named.values, plan.named.positionals)
        }
        let listing = try Self.plan("list_projects", #"{"overdue":true,"due_within":7,"search":"--it's","limit":5}"#)
        #expect(listing.limit == 5 && listing.named.command?.name == "list")
        #expect(
            listing.named.values == [
                "--overdue": [""], "--due-within": ["7"], "--search": ["--it's"], "--format": ["ndjson"],
            ] && listing.named.positionals.isEmpty)
        let shown = try named("show_project", #"{"project":"-rf"}"#)
        #expect(shown.words == ["-rf"] && shown.values == ["--json": [""]])
        let ticking = try named("update_task", #"{"task":"T","project":"P","complete":true}"#)
        #expect(ticking.words == ["update", "T"] && ticking.values == ["--project": ["P"], "--json": [""]])
        let added = try named("add_project", #"{"name":"A","due":"friday","team":["a@x.org","b@x.org"]}"#)
        #expect(
            added.words.isEmpty
                && added.values == [
                    "--name": ["A"], "--due": ["friday"], "--team": ["a@x.org", "b@x.org"], "--if-absent": [""],
                    "--json": [""],
                ])
        let task = try named("add_task", #"{"project":"P","name":"T","if_absent":false}"#)
        #expect(task.words == ["add", "P", "T"] && task.values == ["--json": [""]])
        let reopened = try named("update_project", #"{"project":"P","complete":false}"#)
        #expect(reopened.words == ["P"] && reopened.values == ["--incomplete": [""], "--json": [""]])
        let deleted = try named("delete_project", #"{"project":"P","confirm":true}"#)
        #expect(deleted.words == ["P"] && deleted.values == ["--yes": [""], "--json": [""]])
        let comment = try named("add_comment", #"{"task":"T","project":"P","text":"hi"}"#)
        #expect(comment.words == ["hi"] && comment.values == ["--project": ["P"], "--task": ["T"], "--json": [""]])
        let ticked = try Self.plan("update_task", #"{"task":"T","complete":true}"#)
        #expect(ticked.completeAfter == true && !ticked.changesOtherFields)
    }

    @Test(arguments: [
        ("list_projects", #"{"colour":"red"}"#, "no argument \"colour\""),
        ("list_projects", #"{"due_within":"soon"}"#, "whole number"),
        ("list_projects", #"{"limit":0}"#, "limit"),
        ("list_projects", #"{"overdue":"yes"}"#, "true or false"),
        ("delete_project", #"{"project":"P"}"#, "confirm"),
        ("delete_task", #"{"task":"T","confirm":false}"#, "confirm"),
        ("show_project", #"{}"#, "needs \"project\""),
        ("update_task", #"{"task":"T"}"#, "something to change"),
        ("list_projects", #"[1]"#, "JSON object"),
    ])
    func argumentsThatDoNotFitAreUsageErrors(tool: String, arguments: String, fragment: String) {
        do {
            _ = try Self.plan(tool, arguments)
            Issue.record("\(tool) \(arguments) was accepted")
        } catch let error as AppError {
            #expect(error.exitCode == .usage)
            #expect(error.message.contains(fragment), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aRootRefusesEveryWayOut() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("root-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let share = base + "/home/share"
        try FileManager.default.createDirectory(atPath: share + "/sub", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: share + "/sub/mock-up.png"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: base + "/outside"))
        try FileManager.default.createSymbolicLink(atPath: share + "/out", withDestinationPath: base + "/outside")
        let root = FileRoot.choose(share, home: base + "/home")
        let real = try #require(root.path)
        #expect(try root.resolve("sub/mock-up.png", for: .read, argument: "path") == real + "/sub/mock-up.png")
        #expect(try root.resolve(real + "/sub/mock-up.png", for: .read, argument: "path") == real + "/sub/mock-up.png")
        #expect(try root.resolve("new/dir", for: .writeDirectory, argument: "directory") == real + "/new/dir")
        for path in [
            "../outside", base + "/outside", "out", ".env", "sub/.git/config", "sub/../../outside", "", "missing",
        ] {
            #expect(throws: AppError.self, "\(path)") { try root.resolve(path, for: .read, argument: "path") }
        }
        // The home directory and what is above it are no root.
        for directory in [base + "/home", base, "/"] {
            #expect(FileRoot.choose(directory, home: base + "/home").path == nil, "\(directory)")
        }
    }

    @Test func theModernEraChecksItsMeta() {
        let server = MCPServer(
            tools: MCPTool.all,
            runner: ToolRunner(
                host: ToolHost(
                    opener: { _ in SessionOpener { _, _ in throw AppError.output("no base in this test") } },
                    now: { Date() }, timeZone: Zone(identifier: "UTC")!, checkUploads: { _, _ in [] },
                    beginTurn: { _ in }, token: { nil }, version: "test"),
                root: FileRoot(path: nil, refusal: "none")))
        func meta(_ members: [(String, JSONValue)]) -> JSONValue { .object([("_meta", .object(members))]) }
        let capabilities = (MCPServer.capabilitiesKey, JSONValue.object([]))
        #expect(
            (try? server.modernEra(
                method: "tools/list", params: meta([(MCPServer.versionKey, .string("2026-07-28")), capabilities])
            ).get()) == .modern)
        if case .failure(let error) = server.modernEra(method: "tools/list", params: nil) {
            #expect(error.code == .invalidParams)
        } else {
            Issue.record("no meta was accepted")
        }
        if case .failure(let error) = server.modernEra(
            method: "tools/list", params: meta([(MCPServer.versionKey, .string("2030-01-01")), capabilities]))
        {
            #expect(error.code == .unsupportedProtocolVersion)
            #expect(error.data?["requested"] == .string("2030-01-01"))
        } else {
            Issue.record("an unknown version was accepted")
        }
        if case .failure(let error) = server.modernEra(
            method: "tools/list", params: meta([(MCPServer.versionKey, .string("2026-07-28"))]))
        {
            #expect(error.code == .invalidParams)
        } else {
            Issue.record("no client capabilities was accepted")
        }
    }
}
