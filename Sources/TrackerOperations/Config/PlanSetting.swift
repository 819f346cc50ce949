import TrackerModel

/// The workspace's plan, as far as the month's calls go: Airtable counts every call to the Web API against the
/// workspace's month (Free 1,000; Team 100,000; Business and above unlimited), whatever integration made it.
package struct MonthlyPlan: Equatable, Sendable {
    /// `free`, `team`, `business`, or `custom` for `"monthlyCalls"`.
    package var name: String
    /// The calls a month allows; nil for unlimited.
    package var calls: Int?

    /// The plans by name.
    package static let named: [String: MonthlyPlan] = [
        "free": MonthlyPlan(name: "free", calls: 1_000), "team": MonthlyPlan(name: "team", calls: 100_000),
        "business": MonthlyPlan(name: "business", calls: nil),
        "enterprise": MonthlyPlan(name: "enterprise", calls: nil),
    ]

    /// "the free plan's 1,000 calls a month", "the business plan (no monthly limit)".
    package var words: String {
        guard let calls else { return "the \(name) plan (no monthly limit)" }
        let count = FieldFormatter.grouped(Double(calls), places: 0)
        return name == "custom" ? "\(count) calls a month" : "the \(name) plan's \(count) calls a month"
    }
}

extension Resolver {
    /// `"plan"` (`free`, `team`, `business`), or `"monthlyCalls": N`, or `TRACKER_PLAN` (a plan's name or a number)
    /// over both; and `"backgroundShare"` (0.05 to 1, default 0.5): the part of the month that what nobody asked for
    /// may use.
    package func plan(into configuration: inout Configuration) throws {
        let hint = "Use \"plan\": \"free\", \"team\" or \"business\", or \"monthlyCalls\": a whole number."
        func parse(_ text: String, from origin: String) throws -> MonthlyPlan {
            let word = text.trimmingWhitespace().lowercased()
            if let plan = MonthlyPlan.named[word] { return plan }
            if let calls = Int(word), calls > 0 { return MonthlyPlan(name: "custom", calls: calls) }
            throw AppError.configuration(
                "\(origin) must name a plan or a number of calls, not \"\(text.prefix(20))\"", hint: hint)
        }
        if let given = environment["TRACKER_PLAN"], !given.trimmingWhitespace().isEmpty {
            configuration.plan = try parse(given, from: "TRACKER_PLAN")
            configuration.environmentKeys.append("TRACKER_PLAN")
        } else {
            switch (values[.plan], values[.monthlyCalls]) {
            case (.some(let plan), .some(let calls)) where plan != .null && calls != .null:
                throw AppError.configuration("\(origin) sets both \"plan\" and \"monthlyCalls\"; keep one", hint: hint)
            case (.string(let name)?, _): configuration.plan = try parse(name, from: "\"plan\" in \(origin)")
            case (_, .number(let calls)?) where calls >= 1 && calls <= 1e12 && calls == calls.rounded():
                configuration.plan = MonthlyPlan(name: "custom", calls: Int(calls))
            case (nil, nil), (.null?, _), (_, .null?): break
            default:
                throw AppError.configuration(
                    "\"plan\" or \"monthlyCalls\" in \(origin) is not one tracker knows", hint: hint)
            }
        }
        switch values[.backgroundShare] {
        case nil, .null?: configuration.backgroundShare = Configuration.defaultBackgroundShare
        case .number(let share)? where (0.05...1).contains(share): configuration.backgroundShare = share
        default:
            throw AppError.configuration("\"backgroundShare\" in \(origin) must be a number from 0.05 to 1", hint: nil)
        }
    }
}
