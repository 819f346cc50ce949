#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerModel

/// `tracker usage`: what tracker spent of the base's month of calls, and where the month is heading.
package struct Usage: SetupOperation, Equatable {
    package static let spec = CommandSpec(
        name: "usage", summary: "Say how many calls tracker made to the base this month, and where that heads.",
        usage: ["tracker usage [--json]"],
        flags: [FlagSpec(name: "--json", help: "one object: month, requests, byFace, pace, projection, plan, share")],
        examples: ["tracker usage", "tracker usage --json | jq .projection", "tracker --profile client-x usage"],
        notes: [
            "Airtable counts every call to its Web API against the workspace's month (Free 1,000; Team 100,000; Business",
            "and above unlimited), shared by every integration of the workspace. tracker counts each request it sends,",
            "per base and calendar month (UTC), by face (cli, board, mcp) and use (read, write, upkeep: a copy kept up",
            "to date that nobody asked for at that moment): in the team's Redis when \"redis\" is set (every machine's",
            "count in one place), else in this machine's runtime directory. Tell tracker the plan (\"plan\" or",
            "\"monthlyCalls\", or TRACKER_PLAN) to see the share. tracker cannot see what other integrations spent.",
        ])

    package var json = false

    package init(json: Bool = false) { self.json = json }

    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(json: scanned.has("--json"))
    }

    /// Reads the month's counts where they are kept; sends nothing to Airtable.
    package func run(in setup: Setup) async throws -> UsageReport {
        let configuration = try setup.configuration()
        let surroundings = setup.surroundings(configuration)
        let now = surroundings.now
        let ledger = surroundings.coordination.usage(
            for: configuration.budgetOwner, wallClock: { now().timeIntervalSince1970 })
        let time = now().timeIntervalSince1970
        let month = ledger.thisMonth() ?? MonthUsage(month: MonthUsage.month(at: time))
        return UsageReport(
            usage: month, at: time, plan: configuration.plan, backgroundShare: configuration.backgroundShare,
            keeper: ledger.keeper, baseID: configuration.baseID)
    }
}

/// The month's count and what follows from it: the pace, the projection to the month's end, the share of the plan.
package struct UsageReport: Sendable, Equatable {
    package var usage: MonthUsage
    /// When it was read, in seconds since 1970.
    package var at: Double
    package var plan: MonthlyPlan?
    package var backgroundShare: Double
    /// Where the count is kept, in words.
    package var keeper: String
    package var baseID: String

    /// Days of the month gone (at least an hour's worth, so a month's first minutes do not project wildly).
    package var daysGone: Double {
        max(1.0 / 24, (at - MonthUsage.bounds(at: at).start) / 86_400)
    }

    /// Days in the month.
    package var daysInMonth: Double {
        let bounds = MonthUsage.bounds(at: at)
        return (bounds.end - bounds.start) / 86_400
    }

    /// Requests a day so far.
    package var pace: Double { Double(usage.total) / daysGone }

    /// The month's count at its end, at this pace.
    package var projection: Int { Int((pace * daysInMonth).rounded()) }

    /// The part of the plan spent, and the part the projection comes to; nil without a plan with a limit.
    package var share: (spent: Double, projected: Double)? {
        guard let calls = plan?.calls, calls > 0 else { return nil }
        return (Double(usage.total) / Double(calls), Double(projection) / Double(calls))
    }

    /// Past 80% of the plan this month.
    package var isNearTheLimit: Bool { (share?.spent ?? 0) >= 0.8 }

    /// The report as one object, for a cron job.
    package var object: JSONValue {
        func count(_ value: Int) -> JSONValue { .number(Double(value)) }
        func share(_ value: Double?) -> JSONValue { value.map { .number(($0 * 1000).rounded() / 1000) } ?? .null }
        let faces = Dictionary(grouping: usage.counts, by: \.face).sorted { $0.key < $1.key }
        let byFace: [(String, JSONValue)] = faces.map { face, counts in
            (face, .object(counts.map { ($0.use.rawValue, count($0.requests)) }))
        }
        let byUse: [(String, JSONValue)] = RequestUse.allCases.map { ($0.rawValue, count(usage.requests($0))) }
        var planObject = JSONValue.null
        if let plan {
            let calls: JSONValue = plan.calls.map { count($0) } ?? .null
            planObject = .object([
                ("name", .string(plan.name)), ("monthlyCalls", calls), ("backgroundShare", .number(backgroundShare)),
            ])
        }
        let spentAt: JSONValue =
            usage.spentAt.map { .string(ISOInstant.text(Date(timeIntervalSince1970: $0))) } ?? .null
        let fields: [(String, JSONValue)] = [
            ("base", .string(baseID)), ("month", .string(usage.month)), ("requests", count(usage.total)),
            ("byFace", .object(byFace)), ("byUse", .object(byUse)), ("pacePerDay", .number((pace * 10).rounded() / 10)),
            ("projection", count(projection)), ("plan", planObject), ("spentShare", share(self.share?.spent)),
            ("projectedShare", share(self.share?.projected)), ("monthSpentAt", spentAt), ("countedIn", .string(keeper)),
            ("otherIntegrationsCounted", .bool(false)),
        ]
        return .object(fields)
    }

    /// "0.3%", "42%": a tenth of a percent below ten.
    package static func percent(_ share: Double) -> String {
        let value = share * 100
        return value < 10 ? "\((value * 10).rounded() / 10)%" : "\(Int(value.rounded()))%"
    }

    /// The report for a person: what was spent, by whom, the pace, the projection and the share.
    package var lines: [String] {
        func number(_ value: Int) -> String { FieldFormatter.grouped(Double(value), places: 0) }
        let month = usage.month
        var lines = ["\(number(usage.total)) requests to base \(baseID) in \(month) (UTC), counted in \(keeper)"]
        let faces = Dictionary(grouping: usage.counts, by: \.face).sorted { $0.key < $1.key }
        for (face, counts) in faces {
            let uses = counts.sorted { $0.use.rawValue < $1.use.rawValue }.map {
                "\(number($0.requests)) \($0.use.rawValue)"
            }
            lines.append("  \(face): " + uses.joined(separator: ", "))
        }
        let perDay = pace >= 10 ? number(Int(pace.rounded())) : String((pace * 10).rounded() / 10)
        lines.append("pace: \(perDay) a day; at this pace \(number(projection)) by the month's end")
        if let plan {
            if let share {
                lines.append(
                    "plan: \(plan.words): \(Self.percent(share.spent)) spent, \(Self.percent(share.projected)) projected"
                )
                if isNearTheLimit {
                    lines.append(
                        "warning: past 80% of the month's calls; polling slows to keep the rest for what people ask")
                }
            } else {
                lines.append("plan: \(plan.words)")
            }
        } else {
            lines.append("plan: not set; set \"plan\" (free, team, business) or \"monthlyCalls\" to see the share")
        }
        if let spent = usage.spentAt {
            lines.append(
                "Airtable said the month's calls are spent at \(ISOInstant.text(Date(timeIntervalSince1970: spent)))")
        }
        lines.append("Other integrations of the workspace draw on the same month; tracker cannot see theirs.")
        return lines
    }
}
