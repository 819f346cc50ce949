import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
@testable import TrackerSystem

/// The environment as every command reads it first: each variable once, split at its first "=".
struct ProcessEnvironmentTests {
    /// Runs `body` on a C environment block holding `entries`.
    private func withBlock<T>(_ entries: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> T)
        -> T
    {
        var pointers: [UnsafeMutablePointer<CChar>?] = entries.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }

    @Test func aValueKeepsEveryByteAfterTheFirstEquals() {
        let environment = withBlock(["SPLIT=a=b==c — ünï", "HOME=/home/x", "EMPTY=", "=nameless", "NOEQUALS"]) {
            POSIX.environment(from: $0)
        }
        #expect(environment == ["SPLIT": "a=b==c — ünï", "HOME": "/home/x", "EMPTY": "", "": "nameless"])
    }

    @Test func theFirstOfTwoEntriesOfOneNameWins() {
        let environment = withBlock(["TOKEN=first", "TOKEN=second"]) { POSIX.environment(from: $0) }
        #expect(environment == ["TOKEN": "first"])
    }

    @Test func theProcessEnvironmentIsReadWhole() {
        #expect(POSIX.environment()["PATH"] == getenv("PATH").map { String(cString: $0) })
        #expect(POSIX.environment(from: nil).isEmpty)
    }
}
