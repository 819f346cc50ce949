import Testing

@testable import TrackerModel

/// Cache and snapshot names are these hashes: they must be FNV-1a's, the same from a String and from its bytes.
@Suite(.timeLimit(.minutes(1)))
struct StableHashTests {
    @Test(arguments: [
        ("", 0xcbf2_9ce4_8422_2325 as UInt64), ("a", 0xaf63_dc4c_8601_ec8c), ("foobar", 0x8594_4171_f739_67e8),
    ])
    func textHashesAsFNV1a(text: String, expected: UInt64) {
        #expect(StableHash.of(text) == expected)
        #expect(Array(text.utf8).withUnsafeBytes { StableHash.of(utf8: $0) } == expected)
    }
}
