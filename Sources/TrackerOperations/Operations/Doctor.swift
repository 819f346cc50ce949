import TrackerAPI
import TrackerModel

/// `tracker doctor`: checks the configuration, the token, and the table's fields.
package struct Doctor: SetupOperation, Equatable {
    package static let spec = CommandSpec(
        name: "doctor", summary: "Check the configuration, the token, and the table's fields.",
        usage: ["tracker doctor [--json]"],
        flags: [FlagSpec(name: "--json", help: "one object with a checks array (name, ok, detail)")],
        examples: ["tracker doctor", "tracker doctor --json | jq '.checks[] | select(.ok | not)'"],
        notes: [
            "Every check runs, even after one fails; it exits with the code of the first failing check, as any command",
            "would, and 0 only when all pass. With the team's Redis (\"redis\" or TRACKER_REDIS_URL), the sharing check",
            "connects, authenticates and runs the scripts there; the Airtable checks run without it if it fails. The",
            "pace check says when a 429 slowed every process for a while. The copy check reports the team's copy (its",
            "records, age, who polls it, its size in Redis) when \"teamCopy\" is on.",
        ])

    package var json = false

    /// Each option given.
    package init(json: Bool = false) { self.json = json }

    /// Every check runs, whatever the others found: a configuration that cannot be read fails the checks that
    /// need it, each saying so.
    package func run(in setup: Setup) async throws -> DoctorReport {
        let configuration: Configuration
        do {
            configuration = try setup.configuration()
        } catch {
            let error = error as? AppError ?? .configuration("\(error)", hint: nil)
            let unchecked = ["token", "table", "fields", "pace", "sharing", "deletions"].map { name in
                DoctorCheck(name: name, error: error, detail: "\(name): not checked without a configuration")
            }
            return DoctorReport(configuration: nil, checks: [.failed("configuration", error)] + unchecked)
        }
        let read = DoctorCheck(
            name: "configuration",
            detail: "configuration read" + (Self.profileLine(configuration).map { "; profile \($0)" } ?? ""))
        return DoctorReport(configuration: configuration, checks: [read] + (await checks(configuration, in: setup)))
    }

    /// "work (others: client-x, personal)", or nil for a file without profiles.
    package static func profileLine(_ configuration: Configuration) -> String? {
        guard let profile = configuration.profile else { return nil }
        let others = configuration.profiles.filter { $0 != profile }
        return "\"\(profile)\""
            + (others.isEmpty ? "" : " (others: \(others.map { "\"\($0)\"" }.joined(separator: ", ")))")
    }
}

extension Doctor {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(json: scanned.has("--json"))
    }
}

/// What `doctor` found: the configuration it read (nil when it could not), and every check in order.
package struct DoctorReport: Sendable {
    package var configuration: Configuration?
    package var checks: [DoctorCheck]

    /// The first failure, whose exit code the command ends with.
    package var firstFailure: AppError? { checks.compactMap(\.error).first }

    /// The JSON `--json` prints: one object with a `checks` array (name, ok, detail).
    package var json: JSONValue {
        let objects = checks.map { check in
            let detail = ([check.detail] + check.notes).joined(separator: "; ")
            return JSONValue.object([
                ("name", .string(check.name)), ("ok", .bool(check.ok)), ("detail", .string(detail)),
            ])
        }
        return JSONValue.object([("checks", .array(objects))])
    }
}
