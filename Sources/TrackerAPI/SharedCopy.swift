import TrackerModel

/// The team's copy as a face's own copy sees it (the team's layer implements it): it feeds the copy when it can vouch
/// for what it holds, shows a waiting face the pages of a whole read, and lets go at the face's end.
public protocol SharedCopy: AnyObject, Sendable {
    /// Whether `copy` may answer this turn from what the team's copy gave it; false leaves the turn to Airtable.
    func serves(_ copy: BaseCopy, onPage: (@Sendable ([Project]) -> Void)?) async -> Bool
    /// Gives `onPage` the pages of a whole read as they arrive; nil stops.
    func showPages(_ onPage: (@Sendable ([Project]) -> Void)?) async
    /// Waits until `copy` is loaded from the team's copy, this process polls, or the copy cannot be served.
    func awaitLoaded(_ copy: BaseCopy) async
    /// What the face shows of the copy: who keeps it, and whether it is served.
    var state: String { get async }
    /// Why the copy cannot vouch for itself now, as `state` says it (Redis out of reach, a copy refused); nil when it
    /// can. Decided from the copy's verdict, never read from its words.
    var doubt: String? { get async }
    /// Someone looks at the face (a key, focus, an assistant's call).
    func looked() async
    /// Stops taking part, the lease let go for the next process at once.
    func stop() async
    /// Lets the lease go now, from any thread: the process is ending on a signal.
    func releaseAtExit()
}
