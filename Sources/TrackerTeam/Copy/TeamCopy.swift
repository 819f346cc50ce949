#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

/// One process's part in the team's copy of a base's tables (docs/contract.md "The team's copy"): of every process
/// that keeps it, one holds the poller's lease and brings the copy in Redis up to date every `every` seconds (the
/// refresh a face would run alone, applied by one script its lease fences); the others load it from Redis and follow
/// the refreshes applied (a stream read blocking), with no request to Airtable. A copy it cannot vouch for (missing,
/// short, junk, another layout, stale with nobody polling) is not served: the face's own copy reads Airtable instead,
/// and says why once.
public actor TeamCopy: SharedCopy {
    /// How this process takes part.
    public struct Settings: Sendable {
        /// Seconds between the poller's refreshes.
        public var every: Double
        /// What the copy's records are read by (the fields' names, the fields kept): part of the keys.
        public var layout: String
        /// The fields' names (and tables) records are read by: writers of other faces put their answers in copies
        /// read by the same names.
        public var names: String
        /// Who this process is, in `doctor`'s words: host and process id.
        public var poller: String
        /// Whether the copy keeps every field (an assistant's), or some (a board's).
        public var everyField = true
        public var leaseMilliseconds = 15_000
        public var renewEvery = 5.0
        /// The workspace's calls a month (nil: unlimited or not told), and the part of them the poller may use.
        public var monthlyCalls: Int? = nil
        public var backgroundShare = 0.5
        /// Called when this process takes the poller's lease (client-go's "started leading"): a follower sends no
        /// request, so its face leaves the transport unloaded until then.
        public var whenPolling: @Sendable () -> Void = {}

        public init(every: Double, layout: String, names: String, poller: String) {
            (self.every, self.layout, self.names, self.poller) = (every, layout, names, poller)
        }
    }

    /// Where the copy stands in Redis for this process: its generation (one whole read), the last version applied
    /// here, and the stream entry after which news is read.
    struct Loaded: Sendable {
        var generation: String
        var version: Int
        var newsID: String
    }

    /// The actor runs on a queue of its own: its Redis calls block a thread (up to their bound, a second), and the
    /// cooperative pool's threads (one a core) stay free for the face's other work, its calls and its requests.
    private nonisolated let executor = QueueExecutor(label: "tracker.team-copy")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public nonisolated let store: TeamCopyStore
    /// A connection of its own for the stream's blocking reads.
    let follower: RedisConnection
    public nonisolated let settings: Settings
    nonisolated let token: String
    /// The poller's lease, held as `token` (the copy's scripts check the poller by it).
    nonisolated let lease: Lease
    /// Says one line where the face says such things.
    let say: @Sendable (String) -> Void
    /// Told when the copy changed under a face (a refresh applied by another process): the board redraws.
    public nonisolated let onChange = Locked<(@Sendable () -> Void)?>(nil)
    /// Who sees the pages of the poller's first whole read of the projects: a face waiting for it.
    nonisolated let pages = Locked<(@Sendable ([Project]) -> Void)?>(nil)

    weak var copy: BaseCopy?
    var loaded: Loaded?
    /// This process's part (following, polling, a snapshot): changed by the moves in this file alone.
    private(set) var role = Role.following
    var nextPoll = 0.0
    /// Why the copy is not served now; nil when it is (or is still being opened). Set by `setTrouble` alone.
    private(set) var trouble: String?
    /// Whether Redis could not be reached at the last try: the faces' old behaviour, with the engine's warning only.
    private(set) var unreachable = false
    /// What the next turn owes the copy; changed by `owe(_:)` and `paid(_:)` alone.
    private(set) var owed = Owed()
    var ownVersions = Set<Int>()
    /// The poller's memory of faults between rounds.
    var memory = PollerMemory()
    /// Loads retried in a row because writes landed while the tables were read.
    var loadsMoved = 0
    /// Why the copy followed is too old to serve this turn (its poller stopped refreshing it); nil when it is not.
    private(set) var stale: String?
    /// Why the poller's last round failed, as it told the readers (a minute, or until a round is done); nil if not.
    var pollerFailing: String?
    /// How often the poller polls: `every` while a reader looks, slower while none does or the month requires.
    var pace: PollingPace
    /// The readers' looks counted in Redis as the poller last read them, and whether one came since its last round.
    var looksSeen: String?
    /// The ping count the poller saw last, and whether a `serve` keeps a doorbell for the base (rounds come by pings).
    var pingsSeen: String?
    var doorbellLive = false
    var lookedThisRound = true
    /// The poller's rounds done, and when this process last heard news of a refresh (monotonic).
    var roundsDone = 0
    var lastNewsAt = MonotonicClock.now()
    var lastLookSent = -Double.infinity
    /// Whether the face waiting for the copy was given the poller's first page, and whether that page was seen kept.
    var firstPageShown = false
    var firstPageKept = false
    let openedAt = MonotonicClock.now()
    private var lastSaid: String?
    private var loop: Task<Void, Never>?
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(store: TeamCopyStore, settings: Settings, say: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.settings = settings
        self.say = say
        token = Digest.randomHex(bytes: 16)
        lease = Lease(
            store.keys.lease, holder: token, on: store.connection,
            timing: Lease.Timing(leaseMilliseconds: settings.leaseMilliseconds, renewEvery: settings.renewEvery))
        pace = PollingPace(every: settings.every)
        follower = RedisConnection(
            address: store.connection.address, connectTimeout: 1, answerTimeout: Self.followBlock + 3)
    }

    /// How long one read of the stream waits for news.
    static let followBlock = 1.0
    /// How often a poller with a doorbell rounds on its own: a ping lost costs at most this long.
    static let doorbellSafety = 3600.0

    /// Whether `copy` may answer this turn from what the team's copy gave it (it is up to date with every refresh
    /// applied so far); false when it cannot vouch for it, said once, so the copy reads Airtable itself.
    ///
    /// A face waiting for the first whole read sees its pages as they arrive (`onPage`: the board's first screen), when
    /// this process is the one reading.
    public func serves(_ copy: BaseCopy, onPage: (@Sendable ([Project]) -> Void)? = nil) async -> Bool {
        if isSnapshot { return loaded != nil && trouble == nil }
        start(copy)
        // The face's pages are shown until it is served (or told it is not), never after.
        defer { pages.withLock { $0 = nil } }
        if verdict == .waiting {
            if let onPage { showPages(onPage) }
            while verdict == .waiting { await withCheckedContinuation { waiting.append($0) } }
        }
        // Loaded and vouched for: brought up to date with every refresh applied, and its age judged again.
        switch verdict {
        case .serving, .tooOld: await catchUp()
        default: break
        }
        switch verdict {
        case .serving:
            lastSaid = nil
            return true
        case .refused(let why), .tooOld(let why):
            if why != lastSaid { say("warning: the team's copy in Redis is not used: \(why); reading Airtable") }
            lastSaid = why
            return false
        case .waiting, .unreachable:
            return false
        }
    }

    /// Gives `onPage` the pages of a whole read as they arrive (the poller's own, or the first page it kept for the
    /// readers); nil stops.
    public func showPages(_ onPage: (@Sendable ([Project]) -> Void)?) {
        pages.withLock { $0 = onPage }
        if onPage != nil { showFirstPage() }
    }

    /// Waits until `copy` is loaded from the team's copy (its header brings what the poller asked Airtable), this
    /// process polls (it asks Airtable itself), or the copy cannot be served.
    public func awaitLoaded(_ copy: BaseCopy) async {
        if isSnapshot { return }
        start(copy)
        while loaded == nil, !polling, verdict == .waiting {
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    /// Starts following (and polling, with the lease) for `copy`, once.
    private func start(_ copy: BaseCopy) {
        guard loop == nil else { return }
        self.copy = copy
        loop = Task { await run() }
    }

    /// Loads the copy into `copy` once for a one-shot read, when it was refreshed within `maxAge` seconds (by Redis's
    /// clock) and vouches for itself; false leaves the read to Airtable (a copy that does not vouch is said).
    public func snapshot(into copy: BaseCopy, maxAge: Double) async -> Bool {
        self.copy = copy
        role = .snapshot
        // A Redis gone slow or away costs a second at most (the engine says it): the read goes to Airtable.
        guard let head = try? store.head() else { return false }
        guard let applied = head.fields["applied"].flatMap(Double.init), head.now - applied <= maxAge else {
            return false
        }
        try? await load()
        if let trouble {
            say("warning: the team's copy in Redis is not used: \(trouble); reading Airtable")
            return false
        }
        return loaded != nil
    }

    /// Stops polling and following, letting the lease go (the next process takes over at once).
    public func stop() {
        loop?.cancel()
        if polling { lease.release() }
        lostLease()
    }

    /// Lets the lease go now, from any thread, if this process holds it: the process is ending on a signal and its
    /// tasks will not run again (the next process takes over at once, not when the lease runs out).
    public nonisolated func releaseAtExit() { lease.releaseAtExit() }

    func wake() {
        let resumed = waiting
        waiting = []
        for waiter in resumed { waiter.resume() }
    }

    /// Redis out of reach (`failing`) or reached again (nil): the faces waiting are woken (they read Airtable
    /// meanwhile). Nothing is said here: the budget's engine, on the same Redis, says it once for the process.
    func reached(failing failure: (any Error)?) {
        guard unreachable != (failure != nil) else { return }
        unreachable = failure != nil
        wake()
    }

    func setTrouble(_ why: String?) {
        trouble = why
        wake()
    }

    /// The next turn must do `work` (load the copy again, or have the poller read the base whole).
    func owe(_ work: Owed) { owed.formUnion(work) }

    /// `work` is done.
    func paid(_ work: Owed) { owed.subtract(work) }

    /// How old the copy followed is, as judged this turn: why it is too old to serve, or nil.
    func judgedAge(_ why: String?) { stale = why }

    /// Took the poller's lease at `now`: its first round is now, and the faces waiting hear that this process polls.
    func tookLease(at now: Double) {
        (role, nextPoll) = (.polling(takingOver: false), now)
        settings.whenPolling()
        // Renewed apart from the rounds, which may wait on Airtable for longer than the lease (a whole read of ten
        // thousand tasks at 5 requests a second takes 25 s); a renewal that finds it gone stops the polling.
        lease.keepRenewed { [weak self] in
            guard let self else { return }
            Task { await self.lostLease() }
        }
        wake()
        // A face that shows who polls (the board's header) hears that this process does now.
        if loaded != nil { onChange.withLock { $0 }?() }
    }

    /// A round begins (`true`) or ends: a poller that has loaded nothing takes the copy over first, and nothing is
    /// served from it until that round is done.
    func takingOver(_ begins: Bool) {
        if case .polling = role { role = .polling(takingOver: begins && loaded == nil) }
        if !begins { wake() }
    }

    // MARK: - The loop

    private func run() async {
        while !Task.isCancelled {
            await step()
            // While the poller's first page is not kept yet, a reader looks for it often (for a face's first screen;
            // a face may ask only once this loop is waiting), for its first seconds.
            let drawing = loaded == nil && !polling && !firstPageKept && MonotonicClock.now() - openedAt < 10
            let wait =
                polling
                ? max(0.05, min(Self.followBlock, nextPoll - MonotonicClock.now())) : drawing ? 0.005 : Self.followBlock
            let from = loaded?.newsID ?? "$"
            guard var news = await waitForNews(after: from, upTo: wait, wakeAfter: polling ? memory.wakeID : nil) else {
                // A stream Redis will not read (refused, a wrong type, an answer over the bound) is tried again later
                // and later, never in a loop without pause.
                memory.streamFailures += 1
                let pause = PollerMemory.streamPause(after: memory.streamFailures)
                try? await Task.sleep(nanoseconds: UInt64(pause * 1_000_000_000))
                continue
            }
            memory.streamFailures = 0
            // A reader's wake only ends the wait: the next step reads the looks and brings the round forward.
            if let wake = news.last(where: \.isWake) { memory.wakeID = wake.id }
            news.removeAll(where: \.isWake)
            if !news.isEmpty, loaded != nil { await apply(news) }
        }
    }

    /// One round: the lease taken or kept, the poller's refresh when due, the copy loaded when it must be.
    private func step() async {
        let now = MonotonicClock.now()
        do {
            if !polling, now >= memory.restUntil, try lease.take() {
                tookLease(at: now)
            }
            if polling { noticeLooks() }
            if polling && now >= nextPoll {
                nextPoll = now + pace.idleInterval
                // A round that failed counts as one too: a month Airtable says is spent is then tried again in 10
                // minutes, not at every interval.
                do {
                    try await RequestPurpose.$current.withValue(.background) { try await poll() }
                } catch {
                    roundEnded()
                    throw error
                }
                roundEnded()
                roundSucceeded()
            } else if !polling && (loaded == nil || owed.contains(.load)) {
                try await load()
            }
            reached(failing: nil)
        } catch let refusal as TeamRefusal {
            switch refusal {
            case .lease: lostLease()
            case .broken:
                owe(.wholeRead)
                nextPoll = now
            case .behind:
                // Redis went back in time: this process's copy is the newer, and is put in whole at once.
                say(
                    "warning: the team's copy in Redis is older than the last refresh applied (a restart or a"
                        + " failover); putting it in again")
                (memory.republish, nextPoll) = (true, now)
            }
        } catch let failure as RedisFailure {
            if polling, memory.republish { roundFailed("Redis refused the refresh: " + failure.reason) }
            reached(failing: failure)
            try? await Task.sleep(nanoseconds: 1_000_000_000)
        } catch {
            // Airtable failed the poller's refresh: the copy stays as the last good one, and the next round retries;
            // rounds that keep failing are said, and the lease let go. A first read that failed is told to the
            // readers waiting for it, so none of them waits for nothing.
            let message = (error as? AppError)?.message ?? "\(error)"
            guard loaded == nil else {
                return roundFailed("Airtable did not answer the refresh: " + message, final: Self.endsPolling(error))
            }
            let why = "the first read of the tables failed: " + message
            if polling { store.tellFailure(why) }
            setTrouble(why)
            if Self.endsPolling(error) { roundFailed(why, final: true) }
        }
    }

    /// The lease is another's (or gone): this process follows the copy as a reader from here.
    func lostLease() {
        if polling { role = .following }
        lease.stopRenewing()
    }

    /// Waits up to `seconds` for news after `id` on the follower's connection, on a thread of its own (the read blocks);
    /// nil when Redis failed.
    private func waitForNews(after id: String, upTo seconds: Double, wakeAfter: String?) async -> [TeamNews]? {
        let (store, follower) = (store, follower)
        return await withCheckedContinuation { continuation in
            let started = DetachedThread.start {
                continuation.resume(
                    returning: try? store.news(after: id, blocking: seconds, on: follower, wakeAfter: wakeAfter))
            }
            if !started { continuation.resume(returning: nil) }
        }
    }
}

/// Who this process is, for `doctor`: the host's name and the process id.
public func thisProcessName() -> String { "\(POSIX.hostName() ?? "unknown host") pid \(getpid())" }
