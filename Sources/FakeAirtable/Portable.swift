import TrackerHTTP
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sleeps the calling thread, where Foundation would have given `Thread.sleep`.
func pause(seconds: Double) {
    guard seconds > 0 else { return }
    var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var left = timespec()
    while nanosleep(&time, &left) != 0 && errno == EINTR { time = left }
}

extension String {
    /// Two hex digits.
    fileprivate var zeroFilled: String { count < 2 ? "0" + self : self }
}

/// `value` in decimal, zeros in front up to `width` digits (`String(format: "%05d")`).
func zeroPadded(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

extension StringProtocol {
    /// Every byte but letters, digits, `.` and `-` as `%XX` (a path segment).
    var percentEncoded: String {
        utf8.map { byte in
            let plain =
                (byte >= 48 && byte <= 57) || (byte | 0x20 >= 97 && byte | 0x20 <= 122) || byte == 46 || byte == 45
            return plain ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).zeroFilled
        }.joined()
    }
}

/// A request as the fake reads it: the project's one HTTP server's.
public typealias HTTPRequest = ServedRequest
