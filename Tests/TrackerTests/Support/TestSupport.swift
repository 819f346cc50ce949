import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

/// A clock that moves only when slept on, so retry tests take no time and can assert the waits.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var time = 1000.0
    private var waits: [Double] = []

    var now: Double {
        lock.lock()
        defer { lock.unlock() }
        return time
    }

    /// Every sleep requested, in order.
    var sleeps: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return waits
    }

    /// More sleeps than any command makes: a loop that never gives up would otherwise spin forever on this clock.
    static let runawayLimit = 10_000

    func sleep(_ seconds: Double) {
        lock.lock()
        time += seconds
        waits.append(seconds)
        let runaway = waits.count == Self.runawayLimit
        lock.unlock()
        if runaway {
            // Cancelled, the code under test stops at its next check and the test fails instead of hanging.
            Issue.record("slept \(Self.runawayLimit) times on the test clock: a wait that never ends")
            withUnsafeCurrentTask { $0?.cancel() }
        }
    }

    /// Network surroundings on this clock with a fixed random draw; `notices` collects the terminal notices.
    func environment(random: Double = 0.5, notices: Recorder? = nil) -> NetworkHelper.Environment {
        var environment = NetworkHelper.Environment(now: { self.now }, sleep: { self.sleep($0) }, random: { random })
        if let notices { environment.notify = { notices.append($0) } }
        return environment
    }
}

/// Collects text written to it, from any thread.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [String] = []

    func append(_ text: String) {
        lock.lock()
        parts.append(text)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return parts.joined()
    }

    var lines: [String] { text.split(separator: "\n").map(String.init) }
}

enum Fixture {
    /// The schema API's answer for the Project tracker template's "Design projects" table and its Clients table.
    static let templateSchema = #"""
        {"tables":[{"id":"tblDESIGNdesign01","name":"Design projects","primaryFieldId":"fldNAME000000001","fields":[
          {"id":"fldNAME000000001","name":"Name","type":"singleLineText"},
          {"id":"fldCATEGORY00001","name":"Category","type":"singleSelect","options":{"choices":[
            {"id":"selBRAND00000001","name":"Brand identity"},{"id":"selINDUSTRIAL001","name":"Industrial design"},
            {"id":"selHEALTH0000001","name":"Healthcare design"},{"id":"selTECH000000001","name":"Technology design"}]}},
          {"id":"fldCOMPLETE00001","name":"Complete","type":"checkbox","options":{"icon":"check","color":"greenBright"}},
          {"id":"fldKICKOFF000001","name":"Kickoff date","type":"date","options":{"dateFormat":{"name":"local","format":"l"}}},
          {"id":"fldDUE0000000001","name":"Due date","type":"date","options":{"dateFormat":{"name":"local","format":"l"}}},
          {"id":"fldLEAD000000001","name":"Project lead","type":"singleCollaborator"},
          {"id":"fldTEAM000000001","name":"Project team","type":"multipleCollaborators"},
          {"id":"fldCLIENT0000001","name":"Client","type":"multipleRecordLinks","options":{"linkedTableId":"tblCLIENTSclien01","isReversed":false}},
          {"id":"fldNOTES00000001","name":"Notes","type":"multilineText"}],
          "views":[{"id":"viwALL0000000001","name":"All projects","type":"grid"}]},
         {"id":"tblCLIENTSclien01","name":"Clients","primaryFieldId":"fldCLNAME0000001","fields":[
          {"id":"fldCLNAME0000001","name":"Name","type":"singleLineText"}],"views":[]}]}
        """#

    static let token = "patTESTtest000000.0000000000000000000000000000000000000000000000000000000000001234"

    static func configuration(host: String, budget: Int = 120) -> Configuration {
        Configuration(
            token: token, baseID: "appTESTbase000001", table: "Design projects",
            endpoint: URL(string: "https://\(host)")!,
            requestsPerSecond: 5, timeoutSeconds: 30, retryBudgetSeconds: budget, secretsPath: nil, environmentKeys: [])
    }

    static func network(clock: TestClock, budget: Double = 120, notices: Recorder? = nil) -> NetworkHelper {
        NetworkHelper(
            transport: StubTransport(), timeoutSeconds: 30,
            policy: RetryPolicy(budgetSeconds: budget), pacer: UnlimitedPacer(),
            rules: ProjectAPIClient.rules, environment: clock.environment(notices: notices))
    }

    static func client(_ host: StubTransport.Host, clock: TestClock = TestClock(), budget: Double = 120)
        -> ProjectAPIClient
    {
        ProjectAPIClient(
            access: configuration(host: host.name).access,
            network: network(clock: clock, budget: budget),
            now: { Date(timeIntervalSince1970: 1_795_000_000) })
    }

    /// The cells of a project with just a name and the due date 2026-12-01.
    static func write(name: String) -> ProjectWrite {
        ProjectWrite([(.name, .string(name)), (.due, .string("2026-12-01"))])
    }

    /// A page of records in Airtable's shape, with ids numbered from `first`.
    static func page(_ names: [String], first: Int = 0, offset: String? = nil) -> String {
        let records = names.enumerated().map { index, name in
            record(id: "rec" + String(format: "%014d", first + index), name: name)
        }
        return #"{"records":[\#(records.joined(separator: ","))]\#(offset.map { #","offset":"\#($0)""# } ?? "")}"#
    }

    /// A record with the given id and name, as Airtable returns one.
    static func record(
        id: String, name: String, due: String = "2026-12-01", created: String = "2026-11-21T10:00:00.000Z"
    ) -> String {
        #"{"id":"\#(id)","createdTime":"\#(created)","fields":{"Name":"\#(name)","Due date":"\#(due)"}}"#
    }
}
