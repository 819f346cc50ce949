#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes text to a file descriptor whole.
public enum FileDescriptorWriter {
    /// Writes all of `text`, retrying short writes and EINTR; returns 0 or the errno that stopped it.
    public static func write(_ text: String, to descriptor: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = POSIX.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
    }
}
