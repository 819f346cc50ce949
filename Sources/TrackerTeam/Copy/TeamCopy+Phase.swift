/// The copy's phases: this process's role in it, and what a face asking now is told, decided in one place.
extension TeamCopy {
    /// This process's part in the team's copy. Every process opens following; the moves between roles are
    /// `tookLease(at:)`, `lostLease()`, `takingOver(_:)` and a snapshot's opening, each made in one place.
    enum Role: Equatable, Sendable {
        /// Loading the copy from Redis and following the refreshes applied (the role every process opens in).
        case following
        /// Holding the poller's lease; `takingOver` while a round brings a copy this process had not loaded up to date
        /// (nothing is served from it meanwhile).
        case polling(takingOver: Bool)
        /// A one-shot read's snapshot: loaded once, never followed or polled.
        case snapshot
    }

    /// Work owed to the copy whatever the role, done at the next turn before anything else; owed by `owe(_:)` and
    /// settled by `paid(_:)` alone.
    struct Owed: OptionSet, Sendable {
        let rawValue: Int
        /// Load the copy from Redis again: a gap in the news, another generation, a Redis gone back in time.
        static let load = Owed(rawValue: 1)
        /// Read the base whole from Airtable at the poller's next round: the copy in Redis cannot vouch for itself.
        static let wholeRead = Owed(rawValue: 2)
    }

    /// What a face asking for the copy now is told.
    public enum Verdict: Equatable, Sendable {
        /// Nothing to serve yet and nothing wrong: the first load, the poller's first read or its take-over is awaited.
        case waiting
        /// Served: up to date with every refresh applied so far.
        case serving
        /// Not served this turn: older than its poller's pace allows (judged again at each turn).
        case tooOld(String)
        /// Not served: it cannot vouch for itself (missing, short, junk, another layout, a first read that failed).
        case refused(String)
        /// Not served: Redis is out of reach (the budget's engine says so, once for the process).
        case unreachable
    }

    /// What a face is told now, from the role, what is loaded and the faults seen: Redis out of reach first, then a
    /// copy that cannot vouch for itself, then one not loaded (or being taken over), then its age.
    public var verdict: Verdict {
        if unreachable { return .unreachable }
        if let trouble { return .refused(trouble) }
        if loaded == nil || role == .polling(takingOver: true) { return .waiting }
        if let stale { return .tooOld(stale) }
        return .serving
    }

    /// Why the copy cannot vouch for itself now (Redis out of reach, a copy refused), as the face says it; nil when it
    /// can (served, waited for, or only too old this turn).
    public var doubt: String? {
        switch verdict {
        case .unreachable, .refused: state
        case .waiting, .serving, .tooOld: nil
        }
    }

    /// Whether this process holds the poller's lease.
    var polling: Bool {
        if case .polling = role { return true }
        return false
    }

    /// Whether this is a one-shot read's snapshot.
    var isSnapshot: Bool { role == .snapshot }

    /// What the face shows of the copy: who keeps it, and whether it is served.
    public var state: String {
        switch verdict {
        case .unreachable: return "the team's copy: Redis cannot be reached"
        case .refused(let why): return "the team's copy is not used (\(why))"
        default:
            // Rounds that fail are said where they are polled and where the copy is followed, until one is done.
            if polling {
                return memory.said == nil
                    ? "the team's copy (this process polls)" : "the team's copy (this process polls; its rounds fail)"
            }
            return pollerFailing == nil ? "the team's copy" : "the team's copy (its poller's rounds fail)"
        }
    }
}
