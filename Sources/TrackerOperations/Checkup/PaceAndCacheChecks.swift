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
