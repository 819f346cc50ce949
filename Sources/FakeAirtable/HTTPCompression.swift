#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// The content codings the fake can answer with, each written without a compression library: the formats' own
/// "stored" (uncompressed) blocks are valid input for every decoder, and they change the body's length, which is what
/// a client's length checks must cope with.
public enum HTTPCompression: String, Sendable, CaseIterable {
    case gzip
    case deflate
    case br

    /// The coding to answer with for an `Accept-Encoding` header: `preferred` if the client takes it, else nil.
    static func negotiate(_ acceptEncoding: String?, preferred: HTTPCompression) -> HTTPCompression? {
        let accepted = (acceptEncoding ?? "").split(separator: ",").compactMap { item -> String? in
            let parts = item.split(separator: ";").map { $0.trimmingWhitespace().lowercased() }
            guard let name = parts.first, !name.isEmpty else { return nil }
            return parts.dropFirst().contains("q=0") ? nil : name
        }
        return accepted.contains(preferred.rawValue) ? preferred : nil
    }

    /// `data` in this coding.
    func encode(_ data: Data) -> Data {
        switch self {
        case .gzip: Self.gzip(data)
        case .deflate: Self.zlib(data)
        case .br: Self.brotli(data)
        }
    }

    /// RFC 1952: a gzip member around stored deflate blocks, with CRC-32 and size.
    private static func gzip(_ data: Data) -> Data {
        var out = Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
        out += storedBlocks(data)
        out += littleEndian(crc32(data))
        out += littleEndian(UInt32(truncatingIfNeeded: data.count))
        return out
    }

    /// RFC 1950 (what HTTP calls "deflate"): a zlib header, stored deflate blocks, Adler-32.
    private static func zlib(_ data: Data) -> Data {
        var out = Data([0x78, 0x01])
        out += storedBlocks(data)
        let checksum = adler32(data)
        out += Data([
            UInt8(checksum >> 24), UInt8(checksum >> 16 & 0xFF), UInt8(checksum >> 8 & 0xFF), UInt8(checksum & 0xFF),
        ])
        return out
    }

    /// RFC 1951 stored blocks of at most 65,535 bytes; the last has BFINAL set.
    private static func storedBlocks(_ data: Data) -> Data {
        var out = Data()
        var start = data.startIndex
        repeat {
            let end = min(start + 65_535, data.endIndex)
            let length = UInt16(end - start)
            out.append(end == data.endIndex ? 0x01 : 0x00)
            out += littleEndian(length)
            out += littleEndian(~length)
            out += data[start..<end]
            start = end
        } while start < data.endIndex
        return out
    }

    /// RFC 7932: uncompressed meta-blocks of at most 65,536 bytes, then an empty last meta-block.
    private static func brotli(_ data: Data) -> Data {
        var bits = BitWriter()
        bits.write(0, count: 1)  // WBITS = 16
        var start = data.startIndex
        while start < data.endIndex {
            let end = min(start + 65_536, data.endIndex)
            bits.write(0, count: 1)  // ISLAST
            bits.write(0, count: 2)  // MNIBBLES = 4
            bits.write(UInt32(end - start - 1), count: 16)  // MLEN - 1
            bits.write(1, count: 1)  // ISUNCOMPRESSED
            bits.alignToByte()
            bits.bytes += data[start..<end]
            start = end
        }
        bits.write(1, count: 1)  // ISLAST
        bits.write(1, count: 1)  // ISLASTEMPTY
        bits.alignToByte()
        return bits.bytes
    }

    private struct BitWriter {
        var bytes = Data()
        private var current: UInt8 = 0
        private var used = 0

        mutating func write(_ value: UInt32, count: Int) {
            for bit in 0..<count {
                if value >> UInt32(bit) & 1 == 1 { current |= 1 << UInt8(used) }
                used += 1
                if used == 8 { flush() }
            }
        }

        mutating func alignToByte() { if used > 0 { flush() } }

        private mutating func flush() {
            bytes.append(current)
            current = 0
            used = 0
        }
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }

    private static func adler32(_ data: Data) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
