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

    /// `%XX` sequences decoded as UTF-8; nil when one is malformed or the bytes are not UTF-8.
    var percentDecoded: String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
