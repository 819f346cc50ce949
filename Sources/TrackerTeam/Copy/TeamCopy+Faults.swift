import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

/// What the poller remembers between rounds so the copy in Redis never says more than it holds: a refresh Redis refused
/// is not taken as applied, a Redis that went back in time is seen, rounds that keep failing are said and the lease let go.
struct PollerMemory: Sendable {
    /// This process's copy moved on without Redis (a refresh Redis refused, or one whose answer was lost): the next
    /// round puts the whole copy in from memory (no request to Airtable for it).
    var republish = false
    /// The generation of a whole copy sent whose answer never came: if Redis holds it, it was applied.
    var sentGeneration: String?
    /// The highest version this poller saw the copy reach: a copy at a lower one went back in time.
    var highestVersion = 0
    /// Rounds failed in a row, and what this process last said of them.
    var failedRounds = 0
    var said: String?
    /// Not before this (monotonic) does this process take the lease again, after letting it go for failing rounds.
    var restUntil = 0.0
    /// The last reader's wake the poller saw (its stream's id; from the start of what Redis keeps at first).
    var wakeID = "0-0"
    /// What the poller last found unsound in the copy in Redis (its generation gone, another, or distrusted): each
    /// finding brings one round forward.
    var unsoundSeen: String?
    /// Stream reads failed in a row: each waits longer before the next (at most 10 s), never a loop without pause.
    var streamFailures = 0

    /// Rounds that fail in a row before the poller lets the lease go (one that Airtable refuses the token: at once).
    static let roundsBeforeLettingGo = 3

    /// How long to wait after `failures` stream reads failed in a row.
    static func streamPause(after failures: Int) -> Double { min(10, 0.5 * Double(1 << min(failures, 5))) }
}

extension TeamCopy {
    /// A round the poller could not finish: said once on its own face, told to the readers (its `failed` key), and,
    /// after `roundsBeforeLettingGo` in a row or a token Airtable refuses, the lease let go for a while so another
    /// process (another token, another network) may poll, while the readers judge the copy's age themselves.
    func roundFailed(_ why: String, final: Bool = false) {
        memory.failedRounds += 1
        let line = "warning: the team's copy is not kept up to date: " + why
        if memory.said != line { say(line) }
        memory.said = line
        store.tellFailure(why)
        guard polling, final || memory.failedRounds >= PollerMemory.roundsBeforeLettingGo else { return }
        lease.release()
        lostLease()
        memory.failedRounds = 0
        memory.restUntil = MonotonicClock.now() + max(30, 3 * settings.every)
    }

    /// A round done: the failures before it forgotten, and said to be over on the face that said them.
    func roundSucceeded() {
        memory.failedRounds = 0
        guard memory.said != nil else { return }
        say("the team's copy is kept up to date again")
        store.clearFailure()
        memory.said = nil
    }

    /// Whether an error from Airtable ends this process's polling at once: a token it refuses will not work next round.
    static func endsPolling(_ error: Error) -> Bool {
        switch error as? AppError {
        case .http(let status, _)?: status == 401 || status == 403
        case .tableAccessDenied?, .scopeMissing?: true
        default: false
        }
    }

    /// Before a round that follows one whose whole copy's answer was lost: if Redis holds that generation, it was
    /// applied, and the copy goes on from it; else the whole copy is sent again.
    func settleLostRebuild() {
        guard let generation = memory.sentGeneration, let head = try? store.head() else { return }
        memory.sentGeneration = nil
        guard head.fields["generation"] == generation, let version = head.fields["version"].flatMap({ Int($0) })
        else { return }
        loaded = Loaded(generation: generation, version: version, newsID: head.fields["news"] ?? "0")
        memory.highestVersion = max(memory.highestVersion, version)
        memory.republish = false
    }

    /// Why a copy being followed is too old to serve now, whoever holds the lease: older than three of the poller's
    /// rounds at the pace it says it keeps (slower while nobody looks), with ten seconds' grace; nil when it is not.
    static func tooOld(applied: Double?, now: Double, pace: Double?, every: Double, poller: String?, failed: String?)
        -> String?
    {
        guard let applied else { return nil }
        let age = now - applied
        let limit = poller == nil ? 3 * every : 3 * max(every, pace ?? every) + 10
        guard age > limit else { return nil }
        let whose = poller == nil ? "nobody keeps it up to date" : "its poller has not refreshed it"
        return "it is \(Int(age)) s old and \(whose)" + (failed.map { " (\($0))" } ?? "")
    }
}
