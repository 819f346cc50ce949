/// SHA-1 and SHA-256 of bytes, and HMAC-SHA-256: what Redis names scripts by (`EVALSHA`), and a keyed hash that names
/// a token's budget without the token. No library here has them on Linux (CryptoKit is Apple's).
public enum Digest {
    /// SHA-1 as 40 lowercase hex digits (a script's name for `EVALSHA`; not for secrets).
    public static func sha1Hex(_ text: String) -> String { hex(sha1(Array(text.utf8))) }

    /// HMAC-SHA-256 of `message` under `key`, as lowercase hex.
    public static func hmacSHA256Hex(key: String, _ message: String) -> String {
        hex(hmacSHA256(key: Array(key.utf8), Array(message.utf8)))
    }

    /// HMAC-SHA-256 of `message` under a key of bytes (a webhook's secret), as lowercase hex.
    public static func hmacSHA256Hex(keyBytes key: [UInt8], _ message: [UInt8]) -> String {
        hex(hmacSHA256(key: key, message))
    }

    /// Whether two texts are equal, in a time that does not depend on where they differ (a MAC compared).
    public static func constantTimeEqual(_ first: String, _ second: String) -> Bool {
        let (a, b) = (Array(first.utf8), Array(second.utf8))
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    /// `count` random bytes as hex: a value nobody else holds (a lock's), or an id that says nothing of the host.
    public static func randomHex(bytes count: Int) -> String { hex((0..<count).map { _ in UInt8.random(in: 0...255) }) }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// The message padded to 64-byte blocks with its bit length, as SHA-1 and SHA-256 both do.
    private static func padded(_ message: [UInt8]) -> [UInt8] {
        var bytes = message
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        let bits = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
        return bytes
    }

    private static func words(_ block: ArraySlice<UInt8>) -> [UInt32] {
        (0..<16).map { index in
            let start = block.startIndex + index * 4
            return block[start..<start + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    private static func bytes(_ words: [UInt32]) -> [UInt8] {
        words.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) } }
    }

    static func sha1(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        let data = padded(message)
        for offset in stride(from: 0, to: data.count, by: 64) {
            var w = words(data[offset..<offset + 64])
            for i in 16..<80 { w.append((w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotatedLeft(1)) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch i {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let next = a.rotatedLeft(5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, next)
            }
            for (index, value) in [a, b, c, d, e].enumerated() { h[index] &+= value }
        }
        return bytes(h)
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    public static func sha256(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        let data = padded(message)
        for offset in stride(from: 0, to: data.count, by: 64) {
            var w = words(data[offset..<offset + 64])
            for i in 16..<64 {
                let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
                w.append(w[i - 16] &+ s0 &+ w[i - 7] &+ s1)
            }
            var v = h
            for i in 0..<64 {
                let s1 = v[4].rotatedRight(6) ^ v[4].rotatedRight(11) ^ v[4].rotatedRight(25)
                let choice = (v[4] & v[5]) ^ (~v[4] & v[6])
                let first = v[7] &+ s1 &+ choice &+ roundConstants[i] &+ w[i]
                let s0 = v[0].rotatedRight(2) ^ v[0].rotatedRight(13) ^ v[0].rotatedRight(22)
                let majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2])
                v = [first &+ s0 &+ majority, v[0], v[1], v[2], v[3] &+ first, v[4], v[5], v[6]]
            }
            for index in 0..<8 { h[index] &+= v[index] }
        }
        return bytes(h)
    }

    public static func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? sha256(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = sha256(block.map { $0 ^ 0x36 } + message)
        return sha256(block.map { $0 ^ 0x5c } + inner)
    }
}

extension UInt32 {
    fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 { self << count | self >> (32 - count) }
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }
}
