/// A 64-bit FNV-1a hash of text: the same in every process and every run, unlike `Hasher`.
public enum StableHash {
    public static func of(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { of(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// The hash of text given as its UTF-8 bytes: the same as `of(String(decoding: bytes, as: UTF8.self))`.
    public static func of(utf8 bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
