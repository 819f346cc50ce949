#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FakeAirtable {
    /// Real, small images for the demo base, served by its own download host: a mock-up on a few projects and a logo on
    /// every client, so `files`, `--download` and `show` have something to show.
    public func addDemoFiles() {
        let projects: [(id: String, name: String, colors: [UInt32])] = [
            ("recPsjO1tkEyBCF7y", "label-mockup.png", [0x6B_4226, 0xE8_D5B7]),
            ("rec3g0Xxmw2rw3scs", "logo-directions.png", [0x1F_3A5F, 0xF2_A541, 0xE4_E4E4]),
            ("rec6DyWEAw6ZOWrb4", "frame-sketch.png", [0x2E_8B57, 0xFF_FFFF]),
        ]
        for project in projects {
            attach(
                Self.png(width: 96, height: 64, stripes: project.colors), filename: project.name, type: "image/png",
                toRecord: project.id, field: "Project images")
        }
        let clients = records(inTable: "Clients")
        for (index, client) in clients.enumerated() {
            guard let id = client["id"] as? String else { continue }
            let name = ((client["fields"] as? [String: Any])?["Name"] as? String ?? "client").lowercased()
                .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
            let hue = UInt32(truncatingIfNeeded: 0x30_5080 &+ index &* 0x1F_2B17) & 0xFF_FFFF
            attach(
                Self.png(width: 32, height: 32, stripes: [hue, 0xFF_FFFF]), filename: "\(name)-logo.png",
                type: "image/png", toRecord: id, field: "Logo")
        }
    }

    /// A valid PNG of horizontal stripes in `stripes` (RGB), uncompressed (stored deflate blocks).
    static func png(width: Int, height: Int, stripes: [UInt32]) -> Data {
        var raw: [UInt8] = []
        for row in 0..<height {
            raw.append(0)
            let color = stripes[row * stripes.count / height]
            for _ in 0..<width {
                raw += [UInt8(color >> 16 & 0xFF), UInt8(color >> 8 & 0xFF), UInt8(color & 0xFF)]
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, raw.count - offset)
            let last: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8(~count >> 8 & 0xFF)]
            zlib += raw[offset..<(offset + count)]
            offset += count
        } while offset < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        zlib += bigEndian(b << 16 | a)
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
        return Data(png)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
