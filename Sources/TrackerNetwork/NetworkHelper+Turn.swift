import TrackerModel

extension NetworkHelper {
    /// What taking a request's turn needs of the send it is for.
    struct TakingTurn: Sendable {
        /// When the send began, on the helper's clock: every wait fits in the retry budget from there.
        var started: Double
        /// Seconds already waited on Airtable's 429s.
        var rateLimitWaited: Double
        /// The send's check right before each attempt goes out (an exactly-once write's lock).
        var before: (@Sendable () throws(AppError) -> Void)?
    }

    /// How taking a turn ended.
    enum TurnTaken: Sendable {
        /// The request leaves now.
        case go
        /// Nothing is sent: the send ends with this error.
        case stopped(AppError)
        /// The confirmed turn is further off than the caller may hold its connection open: it is slept out first.
        case later(PaceTurn)
    }

    /// Sleeps until `turn`, runs the attempt's check, and confirms the turn right before the request leaves: a process
    /// woken later than its slot (a loaded machine) takes a new one rather than crowd the next window's second. With
    /// `confirmingNow` false, a turn for now with no check is already the moment the request leaves and goes without
    /// another round trip. A turn confirmed further off than `holdingAtMost` seconds is handed back, not slept.
    func take(_ turn: PaceTurn, _ taking: TakingTurn, confirmingNow: Bool, holdingAtMost: Double? = nil) async
        -> TurnTaken
    {
        var turn = turn
        var confirmed = false
        while true {
            if let refusal = refusal(waiting: turn.wait, taking) { return .stopped(refusal) }
            await pause(turn.wait)
            if Task.isCancelled { return .stopped(.interrupted) }
            if let before = taking.before {
                do throws(AppError) { try before() } catch { return .stopped(error) }
            }
            if !confirmed && !confirmingNow && turn.wait <= 0 && taking.before == nil { return .go }
            do { turn = try pacer.confirmTurn(turn) } catch { return .stopped(error) }
            confirmed = true
            if turn.wait <= 0 { return .go }
            guard environment.now() - taking.started + turn.wait <= policy.budgetSeconds else {
                return .stopped(refused(turn.wait, taking))
            }
            if let holdingAtMost, turn.wait > holdingAtMost { return .later(turn) }
        }
    }

    /// A wait from a schedule others can write (the team's Redis) past the retry budget, refused rather than slept
    /// through; nil when it may be waited.
    func refusal(waiting wait: Double, _ taking: TakingTurn) -> AppError? {
        guard pacer.scheduleKeeper != nil, environment.now() - taking.started + wait > policy.budgetSeconds + 1 else {
            return nil
        }
        return refused(wait, taking)
    }

    /// A wait past the retry budget, refused rather than slept through, naming whose schedule asked for it.
    func refused(_ wait: Double, _ taking: TakingTurn) -> AppError {
        // This machine's own schedule holding back after Airtable's 429s: the cause is Airtable's limit, said as such
        // (a loaded machine can reach the budget here rather than at the 429's own check).
        if pacer.scheduleKeeper == nil, taking.rateLimitWaited > 0 {
            return .rateLimited(waitedSeconds: Int(taking.rateLimitWaited))
        }
        return .waitRefused(
            who: pacer.whoAsksTheWait, seconds: Int(min(wait, 1e9).rounded(.up)), budget: Int(policy.budgetSeconds))
    }

    /// Sleeps `seconds` for a turn; a wait over a second is said: a person should not wonder why nothing happens.
    func pause(_ seconds: Double) async {
        if seconds > 1 {
            await wait(seconds) { "waiting \($0)s behind other tracker processes using this base…" }
        } else if seconds > 0 {
            await environment.sleep(seconds)
        }
    }
}
