import Testing

@testable import TrackerModel
@testable import TrackerServe

/// A ping to `serve` is taken only with the whole MAC: the prefix alone, a MAC cut short, or the right one with a digit
/// changed are refused (a prefix comparison would let anyone who reaches `/airtable/ping` spend the month's calls).
struct PingCheckTests {
    static let key: [UInt8] = Array("the hook's secret".utf8)
    static let body: [UInt8] = Array(#"{"base":{"id":"appFAKEbase000001"},"webhook":{"id":"achFAKE"}}"#.utf8)
    static var right: String { "hmac-sha256=" + Digest.hmacSHA256Hex(keyBytes: key, body) }

    private func armed() -> PingCheck {
        let check = PingCheck()
        check.arm(Self.key)
        return check
    }

    @Test func theWholeMACIsTaken() {
        #expect(armed().verifies(Self.body, mac: Self.right))
        #expect(
            armed().verifies(
                Self.body, mac: Self.right.uppercased().replacingOccurrences(of: "HMAC-SHA256=", with: "hmac-sha256=")))
    }

    @Test(arguments: ["hmac-sha256=", "hmac-sha256=0", "", "sha256=x"])
    func aBarePrefixOrAStubIsRefused(mac: String) {
        #expect(!armed().verifies(Self.body, mac: mac))
    }

    @Test func aMACCutShortOrWithItsLastDigitChangedIsRefused() {
        let right = Self.right
        #expect(!armed().verifies(Self.body, mac: String(right.dropLast())))
        #expect(!armed().verifies(Self.body, mac: String(right.prefix(right.count / 2))))
        let last = right.last!
        #expect(!armed().verifies(Self.body, mac: String(right.dropLast()) + (last == "0" ? "1" : "0")))
        #expect(!armed().verifies(Self.body + [0x20], mac: right), "another body under the same MAC")
    }

    @Test func anUnarmedCheckRefusesEveryPing() {
        #expect(!PingCheck().verifies(Self.body, mac: Self.right))
    }
}
