import Dispatch

/// A serial executor on a dispatch queue of its own, for an actor whose work blocks a thread (a synchronous network
/// call up to its bound): the blocking happens there, and Swift's cooperative pool (one thread a core) stays free.
public final class QueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    public init(label: String) { queue = DispatchQueue(label: label) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}
