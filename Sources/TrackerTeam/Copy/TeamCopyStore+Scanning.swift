import Dispatch
import TrackerAPI
import TrackerNetwork
import TrackerSystem

extension TeamCopyStore {
    /// Every record of `table`, a batch at a time, as stored (`"<stamp> <order> <json>"`). The next batches are read
    /// from Redis on a thread of their own while this one is decoded, so reading and decoding share the machine's
    /// cores (150,000 records open in about half the time); at most two batches wait, so memory stays bounded.
    func scan(_ table: BaseCopy.Table, _ batch: ([(id: String, value: String)]) throws -> Void) throws {
        let ahead = BatchesAhead()
        defer { ahead.cancel() }
        let (connection, key, between) = (connection, keys.records(table), betweenPages)
        let started = DetachedThread.start {
            do {
                try Self.scanPages(key, on: connection, while: ahead.mayFetch, between: between) {
                    ahead.put(.batch($0))
                }
                ahead.put(.end)
            } catch {
                ahead.put(.failed(error))
            }
        }
        // No thread to spare: read and decode in turn.
        guard started else { return try Self.scanPages(key, on: connection, between: between, each: batch) }
        while true {
            switch ahead.take() {
            case .batch(let found): try batch(found)
            case .failed(let failure): throw failure
            case .end: return
            }
        }
    }

    /// Every `HSCAN` page of `key` in turn, each handed to `each`, while `mayGoOn` says so before each page.
    private static func scanPages(
        _ key: String, on connection: RedisConnection, while mayGoOn: () -> Bool = { true },
        between: (@Sendable () -> Void)?, each: ([(id: String, value: String)]) throws -> Void
    ) throws {
        var cursor = "0"
        repeat {
            guard mayGoOn() else { return }
            let (next, found) = try scanPage(key, from: cursor, on: connection)
            try each(found)
            cursor = next
            if cursor != "0" { between?() }
        } while cursor != "0"
    }

    /// One `HSCAN` page of `key` from `cursor`: the next cursor and the fields with their values.
    private static func scanPage(_ key: String, from cursor: String, on connection: RedisConnection)
        throws(RedisFailure) -> (next: String, found: [(id: String, value: String)])
    {
        let answer = try connection.command(["HSCAN", key, cursor, "COUNT", "2000"])
        guard case .array(let parts?) = answer, parts.count == 2, let next = parts[0].text,
            case .array(let items?) = parts[1]
        else { throw .replied("HSCAN answered in an unexpected shape") }
        var found: [(id: String, value: String)] = []
        found.reserveCapacity(items.count / 2)
        var index = 0
        while index + 1 < items.count {
            found.append((items[index].text ?? "", items[index + 1].text ?? ""))
            index += 2
        }
        return (next, found)
    }
}

/// The batches one thread reads ahead for another: at most two wait; the reader stops once the taker gives up.
private final class BatchesAhead: Sendable {
    enum Piece: Sendable {
        case batch([(id: String, value: String)])
        case failed(any Error)
        case end
    }

    // Both start at 0: libdispatch traps when a semaphore is freed below the value it was made with.
    private let free = DispatchSemaphore(value: 0)
    private let ready = DispatchSemaphore(value: 0)
    private let state = Locked<(pieces: [Piece], cancelled: Bool)>(([], false))

    init() {
        free.signal()
        free.signal()
    }

    /// Waits for room for one more batch; false once the taker gave up.
    func mayFetch() -> Bool {
        free.wait()
        return !state.withLock { $0.cancelled }
    }

    func put(_ piece: Piece) {
        state.withLock { $0.pieces.append(piece) }
        ready.signal()
    }

    func take() -> Piece {
        ready.wait()
        let piece = state.withLock { $0.pieces.removeFirst() }
        free.signal()
        return piece
    }

    /// The taker is done (all read, or it stopped at junk): a reader waiting for room stops.
    func cancel() {
        state.withLock { $0.cancelled = true }
        free.signal()
    }
}
