#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

/// The readers' looks and the poller's pace: a copy nobody looks at is refreshed less and less often.
extension TeamCopy {
    /// Someone looks at this process's face (a key on the board, an assistant's call): the poller, wherever it runs,
    /// goes back to its own interval, and a copy left to age while nobody looked is brought up to date before the face
    /// answers (at most `every` + 2 s).
    public func looked() async {
        let now = MonotonicClock.now()
        // One count a second at most: a person typing costs Redis nothing to speak of. The poller's pace comes back
        // with it: one that slowed down refreshes for this look, and this face waits for that refresh.
        var pollerSlowed = false
        if now - lastLookSent >= 1 {
            lastLookSent = now
            let answers = try? store.connection.call([
                ["INCR", store.keys.looks], ["EXPIRE", store.keys.looks, "600"], ["GET", store.keys.pace],
                ["EXISTS", store.keys.doorbell],
            ])
            guard let answers, answers.count == 4 else {
                return reached(failing: RedisFailure.unreachable("it did not take the look"))
            }
            // Airtable pings the team's `serve` when anything changes: the copy is as fresh as the last ping made it,
            // and no look needs a round of its own.
            if answers[3] == .integer(1) { return }
            pollerSlowed = (answers[2].text.flatMap(Double.init) ?? 0) > settings.every
            if pollerSlowed {
                // The poller blocks reading the news and a wake stream: this wakes it now, not at its next second.
                _ = try? store.connection.call([
                    ["XADD", store.keys.wake, "MAXLEN", "~", "10", "*", "look", "1"],
                    ["PEXPIRE", store.keys.wake, "600000"],
                ])
            }
        }
        // A copy that cannot be served now (Redis out of reach, a copy in doubt) is not waited for: the face reads
        // Airtable at once, and no refresh is coming to wait for.
        switch verdict {
        case .unreachable, .refused: return
        default: break
        }
        let patience = settings.every + 2
        if polling {
            guard pace.isBackedOff else { return pace.looked() }
            pace.looked()
            publishPace()
            nextPoll = now
            let before = roundsDone
            await waitFor(patience) { $0.roundsDone > before || !$0.polling }
        } else if loaded != nil, pollerSlowed || now - lastNewsAt > settings.every * 1.5 + 1 {
            // The poller had slowed down (it says so, or no refresh came for longer than its interval): the look wakes
            // it (at once through the wake stream, else at its next second) and this face waits for its refresh.
            let before = loaded?.version
            await waitFor(patience) { $0.loaded?.version != before || $0.polling }
        }
    }

    /// Waits at most `seconds` for `done`, looking every 50 ms.
    private func waitFor(_ seconds: Double, _ done: (isolated TeamCopy) -> Bool) async {
        let end = MonotonicClock.now() + seconds
        while !done(self), MonotonicClock.now() < end, !Task.isCancelled {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// The poller reads the readers' looks: one since its last round keeps it at its own interval, and one after it
    /// slowed down brings the next round forward to now.
    func noticeLooks() {
        guard
            let answers = try? store.connection.call([
                ["GET", store.keys.looks], ["GET", store.keys.pings], ["EXISTS", store.keys.doorbell],
                ["HMGET", store.keys.head, "generation", "distrusted", "version"],
            ]), answers.count == 4
        else { return }
        noticeUnsoundCopy(answers[3])
        // A ping since the last look at the count: something changed in the base, so the round is now. While a
        // doorbell is kept, pings bring every round but the hourly one, whoever looks.
        doorbellLive = answers[2] == .integer(1)
        let pings = answers[1].text ?? "0"
        if let seen = pingsSeen, seen != pings { nextPoll = MonotonicClock.now() }
        pingsSeen = pings
        // No count yet, or one gone after ten minutes with no look, is "0"; going to it is no look.
        let looks = answers[0].text ?? "0"
        defer { looksSeen = looks }
        guard !doorbellLive, looks != "0", let seen = looksSeen, seen != looks else { return }
        lookedThisRound = true
        if pace.isBackedOff {
            pace.looked()
            publishPace()
            nextPoll = MonotonicClock.now()
        }
    }

    /// The copy in Redis is not the one this poller keeps (flushed, evicted, distrusted by a reader that found junk in
    /// it, or gone back in time: a restart from an older dump, a failover to a replica behind, at a version below one
    /// this poller saw): its round, which puts the copy in again, comes now rather than at a pace slowed by nobody
    /// looking or after the hour a doorbell allows (readers would be served the older copy meanwhile), once for each
    /// such finding (a Redis that keeps refusing it is not asked every second).
    private func noticeUnsoundCopy(_ head: RESPValue) {
        guard let loaded, case .array(let fields?) = head, fields.count == 3 else { return }
        let generation = fields[0].text
        let seen = max(loaded.version, memory.highestVersion)
        let behind = generation == loaded.generation && (fields[2].text.flatMap { Int($0) } ?? 0) < seen
        let unsound = generation != loaded.generation || fields[1].text == loaded.generation || behind
        // The version names a finding only when it is the fault: another generation's writes are not new findings.
        let finding =
            unsound ? (generation ?? "none") + " " + (fields[1].text ?? "") + (behind ? " behind" : "") : nil
        // The round's refresh then hears Redis refuse it as behind, and this process's copy goes in whole.
        if let finding, finding != memory.unsoundSeen { nextPoll = MonotonicClock.now() }
        memory.unsoundSeen = finding
    }

    /// Tells the readers how long the poller waits between rounds now (its own interval, or longer while nobody looks),
    /// so a reader's look after it slowed waits for the refresh it brings.
    func publishPace(_ interval: Double? = nil) {
        let seconds = interval ?? pace.idleInterval
        // It outlives three rounds at that pace: a reader takes a copy older than three rounds as one nobody refreshes.
        let life = max(600, Int(seconds * 3))
        _ = try? store.connection.call([["SET", store.keys.pace, "\(seconds)", "EX", "\(life)"]])
    }

    /// A round done: the pace doubles when nobody looked since the last, and stretches further when the month's
    /// background share requires, or waits 10 minutes once Airtable said the month is spent.
    func roundEnded() {
        roundsDone += 1
        pace.roundEnded(looked: lookedThisRound)
        lookedThisRound = false
        let month = copy?.client.network.usage.thisMonth()
        var interval = pace.interval(
            month: month, at: Double(time(nil)), monthlyCalls: settings.monthlyCalls,
            backgroundShare: settings.backgroundShare)
        // Pinged when anything changes, the poller rounds on its own only to catch a ping that was lost.
        if doorbellLive { interval = max(interval, Self.doorbellSafety) }
        if interval > settings.every || pace.idleRounds <= 1 { publishPace(interval) }
        nextPoll = MonotonicClock.now() + interval
    }
}
