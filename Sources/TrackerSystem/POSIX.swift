#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's file calls by a name of their own, for code where a method called `open`, `read` or `write` would
/// hide them.
public enum POSIX {
    /// This machine's name (`gethostname`); nil when it cannot be told.
    public static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How many processors are online (at least 1): how many parts work that runs on every core is cut into.
    public static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode)
        #else
            Darwin.open(path, flags, mode)
        #endif
    }

    public static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.read(descriptor, buffer, count)
        #else
            Darwin.read(descriptor, buffer, count)
        #endif
    }

    public static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, buffer, count)
        #else
            Darwin.write(descriptor, buffer, count)
        #endif
    }
}

extension POSIX {
    /// Everything left to read from `descriptor` (standard input, a pipe), retrying reads a signal interrupted.
    public static func readAll(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }

    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes; 0, or the errno that stopped it.
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return 0
    }

    /// Creates `path` and any missing parents (`mkdir -p`) with `mode`; 0, or the errno of the step that failed.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) -> Int32 {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR ? 0 : ENOTDIR }
        let parent = Path.directory(of: path)
        if !parent.isEmpty && parent != path {
            let code = makeDirectories(parent, mode: mode)
            if code != 0 { return code }
        }
        return mkdir(path, mode) == 0 || errno == EEXIST ? 0 : errno
    }

    /// The C library's words for an errno.
    public static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// Slash-separated paths taken apart as `NSString` did, without the part of Foundation that holds it.
public enum Path {
    /// `path` as a person meant it: relative to `directory` (where tracker was started) unless it is absolute.
    public static func absolute(_ path: String, from directory: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }

    /// `a/b/c` → `a/b`, `/c` → `/`, `c` → "" (trailing slashes ignored).
    public static func directory(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `a/b/c.txt` → `c.txt`.
    public static func lastComponent(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? String(path)
    }

    /// `c.tar.gz` → `gz`, `notes` → "", `.profile` → "".
    public static func pathExtension(of path: String) -> String {
        let name = lastComponent(of: path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}

extension POSIX {
    /// Runs `argv` (found on PATH) with every stream on /dev/null and waits for it: its exit status, or nil when it
    /// could not be started.
    public static func runQuietly(_ argv: [String]) -> Int32? {
        guard case .success(let pid) = spawn(argv) else { return nil }
        return exitStatus(of: pid)
    }

    /// Stops this process as Ctrl-Z stops a program, and returns once it is continued (`fg`). SIGTSTP is raised on the
    /// calling thread, unblocked there for the moment: sent to the process, it would stop it a moment later from
    /// whichever thread took it, while the caller ran on (and a child continued early read a terminal it no longer had).
    public static func stopUntilContinued() {
        var stop = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &stop, &previous)
        raise(SIGTSTP)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    /// Waits for the child `pid`: its exit status, or nil when a signal ended it.
    public static func exitStatus(of pid: pid_t, followingStops: Bool = false) -> Int32? {
        let status = waitStatus(of: pid, followingStops: followingStops)
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }

    /// Waits for the child `pid` and says how it ended as a shell does: its exit status, or 128 + the signal that
    /// ended it (143 for SIGTERM).
    public static func shellStatus(of pid: pid_t, followingStops: Bool = false) -> Int32 {
        let status = waitStatus(of: pid, followingStops: followingStops)
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + status & 0x7F
    }

    /// waitpid's status for `pid`, following stops when asked.
    private static func waitStatus(of pid: pid_t, followingStops: Bool) -> Int32 {
        var status: Int32 = 0
        while true {
            guard waitpid(pid, &status, followingStops ? WUNTRACED : 0) >= 0 else {
                if errno == EINTR { continue }
                break
            }
            // WIFSTOPPED: the program was suspended (Ctrl-Z in a full-screen command): this process stops too, so the
            // shell sees the job stopped, and `fg` continues both.
            guard followingStops, status & 0xFF == 0x7F else { break }
            stopUntilContinued()
            kill(pid, SIGCONT)
        }
        return status
    }

    /// Names whose values are secrets (the token, the team's Redis with its password): never passed on to a program
    /// tracker starts (an editor, a browser, a token command, the demo's shell).
    public static let withheldFromPrograms: Set<String> = ["AIRTABLE_TOKEN", "TRACKER_REDIS_URL"]

    /// Starts `argv` (found on PATH) with this process's environment, less `withheldFromPrograms`, its three streams
    /// on the descriptors given (else /dev/null), and `closing` closed in the child: its pid, or the errno of the
    /// failure. `environment`, when given, replaces this process's (less the same names).
    public static func spawn(
        _ argv: [String], standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil,
        closing: [Int32] = [], environment: [String: String]? = nil
    ) -> Result<pid_t, SpawnError> {
        #if canImport(Darwin)
            // Darwin's posix_spawn types are optional pointers rather than structs.
            var actions: posix_spawn_file_actions_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        for descriptor in closing { posix_spawn_file_actions_addclose(&actions, descriptor) }
        #if canImport(Darwin)
            var attributes: posix_spawnattr_t? = nil
        #else
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The program starts as a shell would start it: no signal blocked (the threads tracker's tasks run on block them
        // all, and exec keeps a mask, so a demo shell's Ctrl-C reached nothing), and SIGPIPE, which tracker ignores, with
        // Ctrl-C's and the ending signals, at their defaults.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var arguments = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        var given =
            (environment ?? Self.environment()).filter { !Self.withheldFromPrograms.contains($0.key) }
            .map { strdup($0.key + "=" + $0.value) } + [nil]
        defer { for entry in given { free(entry) } }
        let code = posix_spawnp(&pid, argv[0], &actions, &attributes, &arguments, &given)
        return code == 0 ? .success(pid) : .failure(SpawnError(code: code))
    }

    /// Why a program could not be started: an errno.
    public struct SpawnError: Error {
        public var code: Int32
    }
}

extension POSIX {
    /// The process's environment, read from the C library's `environ` (Foundation's ProcessInfo builds far more at
    /// its first use); the first of a repeated name wins, as getenv(3) has it.
    public static func environment() -> [String: String] {
        #if canImport(Darwin)
            let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = _NSGetEnviron().pointee
        #else
            let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        #endif
        return environment(from: start)
    }

    /// The variables of a C environment block (NAME=value entries up to a null): each name once, the first kept.
    static func environment(from start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String: String] {
        var values: [String: String] = [:]
        guard let start else { return values }
        var count = 0
        while start[count] != nil { count += 1 }
        // Sized once and split at the byte: every command reads it first, so rehashing as it grows, and finding "=" a
        // Character at a time, were a measurable part of start-up.
        values.reserveCapacity(count)
        for pointer in UnsafeBufferPointer(start: start, count: count) {
            guard let pointer, let equals = strchr(pointer, Int32(UInt8(ascii: "="))) else { continue }
            let key = String(
                decoding: UnsafeRawBufferPointer(start: pointer, count: pointer.distance(to: equals)), as: UTF8.self)
            if values[key] == nil { values[key] = String(cString: equals + 1) }
        }
        return values
    }

    /// The path of the running program's file, as the kernel knows it; nil where it cannot be told.
    public static func executablePath() -> String? {
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            guard count > 0 else { return nil }
            return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #elseif canImport(Darwin)
            var size = UInt32(4096)
            var buffer = [CChar](repeating: 0, count: Int(size))
            guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
            return String(cString: buffer)
        #else
            return nil
        #endif
    }
}
