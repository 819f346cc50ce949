#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerNetwork
import TrackerModel

/// `doctor`'s finding on how the base's budget and the write locks are shared: on this machine, or through the team's
/// Redis, which is then checked as the commands use it.
enum SharingCheck {
    static func report(_ finding: SharingFinding?, _ configuration: Configuration) -> DoctorCheck {
        guard let address = configuration.redis, let finding else {
            return DoctorCheck(
                name: "sharing",
                detail:
                    "budget and locks shared by this machine's tracker processes; set \"redis\" to share them across machines"
            )
        }
        switch finding {
        case .thisMachine:
            return .skipped("sharing", "not checked in this run")
        case .team(let health):
            let skew = FieldFormatter.grouped(abs(health.clockSkew), places: 2)
            let trip = FieldFormatter.grouped(health.roundTrip * 1000, places: 2)
            let count = health.processes
            var check = DoctorCheck(
                name: "sharing",
                detail:
                    "\(address.display): authenticated, round trip \(trip) ms, scripts run, writes taken, clock \(skew) s from this machine's (pacing uses Redis's), \(count) tracker process\(count == 1 ? "" : "es") drew on this base's budget in the last minute"
            )
            if abs(health.clockSkew) > 60 {
                check.notes.append("This machine's clock is off; pacing is unaffected, but check NTP.")
            }
            if let policy = health.evicting {
                check.notes.append(
                    "Warning: this Redis evicts keys at its memory limit (maxmemory-policy \(policy)): a lock or the "
                        + "budget's schedule evicted stops writes with the lock lost and lets a burst through; set "
                        + "maxmemory-policy noeviction, or give it room.")
            }
            return check
        case .teamFailed(let problem):
            return .failed("sharing", problem)
        }
    }
}
