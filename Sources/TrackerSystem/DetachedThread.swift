#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX thread for one blocking call (libcurl's transfer), started detached so it cleans up after itself.
/// Foundation's `Thread` would do, but it lives in the part of Foundation tracker does not link on Linux.
public enum DetachedThread {
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread with a stack of `stackSize` bytes; false when no thread could be made.
    @discardableResult
    public static func start(stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        #if canImport(Glibc)
            var thread = pthread_t()
        #else
            var thread: pthread_t?
        #endif
        let started = pthread_create(
            &thread, &attributes,
            { pointer in
                let work = Unmanaged<Work>.fromOpaque(pointer!).takeRetainedValue()
                work.body()
                return nil
            }, work)
        if started != 0 { Unmanaged<Work>.fromOpaque(work).release() }
        return started == 0
    }
}
