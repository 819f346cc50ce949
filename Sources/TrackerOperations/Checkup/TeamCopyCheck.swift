import TrackerAPI
import TrackerTeam
import TrackerModel
import TrackerNetwork

/// `doctor`'s finding on the team's copy: off, or each copy of the base in the team's Redis (its age, records a
/// table, who polls, its size), with what may take its keys away.
enum TeamCopyCheck {
    static func report(_ configuration: Configuration, health: SharingFinding?) -> DoctorCheck {
        guard let address = configuration.teamCopyRedis else {
            return DoctorCheck(
                name: "copy",
                detail:
                    "the team's copy is off: each board and assistant reads the base itself (\"teamCopy\": true with \"redis\" shares one copy; it stores records in Redis)"
            )
        }
        let surveys: [TeamCopySurvey]
        do throws(RedisFailure) {
            surveys = try TeamCopySurvey.all(configuration.budgetOwner, on: RedisConnection(address: address))
        } catch {
            return .failed("copy", error.problem(at: address.display))
        }
        let every = FieldFormatter.grouped(configuration.teamCopyEvery, places: 0)
        guard !surveys.isEmpty else {
            return DoctorCheck(
                name: "copy",
                detail: "the team's copy is on (every \(every) s); none is kept yet: the first board or mcp builds it")
        }
        var check = DoctorCheck(
            name: "copy",
            detail: "the team's copy is on (every \(every) s): " + surveys.map(describe).joined(separator: "; "))
        if surveys.contains(where: { $0.counts.contains { $0.counted != $0.held } || $0.age == nil }) {
            check.notes.append(
                "A copy short of records or without its header is not served; its poller reads it whole.")
        }
        if surveys.contains(where: { !$0.isCurrentFormat }) {
            check.notes.append(
                "A copy an older tracker keeps is its own: this version reads and polls the copy of its format only.")
        }
        if let failed = surveys.compactMap(\.failed).first {
            check.notes.append("Warning: the poller's last round failed: \(StandardErrorText.safe(failed)).")
        }
        if case .team(let health)? = health, let policy = health.evicting {
            check.notes.append(
                "Warning: maxmemory-policy \(policy) may evict the copy's keys; readers then read Airtable until it is rebuilt."
            )
        }
        return check
    }

    private static func describe(_ survey: TeamCopySurvey) -> String {
        let kind =
            !survey.isCurrentFormat
            ? "an older tracker's copy" : survey.keepsEveryField == false ? "board's fields" : "every field"
        guard let age = survey.age else { return "a copy (\(kind)) with no header (flushed or evicted)" }
        let counts = survey.counts.map { count in
            count.counted == count.held
                ? "\(count.held.formatted()) \(count.table)" : "\(count.held) of \(count.counted) \(count.table)"
        }.joined(separator: ", ")
        let size = survey.bytes.map { ", " + FieldFormatter.grouped(Double($0) / 1_048_576, places: 1) + " MiB" } ?? ""
        var poller = survey.poller.map { "polled by \(StandardErrorText.safe($0))" } ?? "nobody polls it"
        if survey.poller != nil, let pace = survey.pace, pace > 0 { poller += " every \(Int(pace)) s" }
        let version = survey.version.map { ", version \($0)" } ?? ""
        return "\(kind): \(counts), \(Int(age)) s old\(version), \(poller)\(size)"
    }
}
