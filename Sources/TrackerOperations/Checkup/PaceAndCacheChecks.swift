import TrackerModel
import TrackerNetwork

/// `doctor`'s findings on the pace the configuration sets and on the schema tracker remembers.
extension Doctor {
    /// Airtable allows 5 requests a second per base; more earns 30-second lockouts.
    static func paceCheck(_ configuration: Configuration, coordination: any Coordination) -> DoctorCheck {
        let pace = configuration.requestsPerSecond
        let shown = pace == pace.rounded() ? String(Int(pace)) : String(pace)
        guard pace <= 5 else {
            let text =
                "requestsPerSecond is \(shown), above Airtable's limit of 5 a second per base; expect 30-second lockouts"
            return .failed("pace", .configuration(text, hint: "Set \"requestsPerSecond\" to 5 or less."))
        }
        // After a 429 every process goes slower for a while: doctor says so rather than the configured pace alone.
        let now = coordination.pacer(for: configuration.budgetOwner).currentPace()
        let slowed = now.map { $0.isSlowed ? "; now \($0.words)" : "" } ?? ""
        return DoctorCheck(name: "pace", detail: "pace \(shown) requests a second, within Airtable's 5\(slowed)")
    }

    /// The month's calls tracker spent (doctor's own requests among them), and a warning past 80% of the plan: the
    /// month is the workspace's, shared with every integration, and past it Airtable refuses every call.
    static func monthCheck(_ configuration: Configuration, surroundings: SessionSurroundings) -> DoctorCheck {
        let now = surroundings.now
        let ledger = surroundings.coordination.usage(
            for: configuration.budgetOwner, wallClock: { now().timeIntervalSince1970 })
        let time = now().timeIntervalSince1970
        let report = UsageReport(
            usage: ledger.thisMonth() ?? MonthUsage(month: MonthUsage.month(at: time)), at: time,
            plan: configuration.plan, backgroundShare: configuration.backgroundShare, keeper: ledger.keeper,
            baseID: configuration.baseID)
        let spent = FieldFormatter.grouped(Double(report.usage.total), places: 0)
        let projected = FieldFormatter.grouped(Double(report.projection), places: 0)
        var detail = "\(spent) requests this month by tracker, \(projected) at this pace by its end"
        if let plan = configuration.plan, let share = report.share {
            detail += "; \(UsageReport.percent(share.spent)) of \(plan.words)"
            if report.isNearTheLimit {
                detail = "warning: " + detail + "; past 80%, polling slows to keep the rest for what people ask"
            }
        } else if configuration.plan == nil {
            detail += " (set \"plan\" to see the share)"
        }
        if report.usage.spentAt != nil { detail = "warning: Airtable said the month's calls are spent; " + detail }
        return DoctorCheck(name: "month", detail: detail)
    }

    /// How old the remembered schema was when doctor started; doctor itself reads it anew.
    static func cacheCheck(age: Double?, cache: CacheDirectory?) -> DoctorCheck {
        guard let age else {
            let place = cache.map { " (\($0.path))" } ?? ""
            return DoctorCheck(name: "cache", detail: "no schema remembered yet\(place); the next command reads it")
        }
        let minutes = Int(age / 60)
        let when = minutes < 1 ? "less than a minute" : "\(minutes) minute\(minutes == 1 ? "" : "s")"
        let fresh = age < RememberedBase.lifetime ? "read again after an hour" : "too old, so read again"
        return DoctorCheck(
            name: "cache", detail: "the schema remembered was \(when) old (\(fresh)); doctor read it now")
    }
}
