import Foundation
import Testing

@testable import TrackerModel
@testable import tracker
@testable import TrackerOperations

/// `report --format email`: a message `sendmail -t` delivers and any mail client reads back as it was written.
@Suite(.timeLimit(.minutes(2)))
struct MailMessageTests {
    /// RFC 2045's decoding, written from the RFC rather than from the encoder.
    static func decodeQuotedPrintable(_ text: String) -> String {
        var bytes: [UInt8] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var scalars = Array(line.utf8)
            let soft = scalars.last == UInt8(ascii: "=")
            if soft { scalars.removeLast() }
            var index = 0
            while index < scalars.count {
                if scalars[index] == UInt8(ascii: "="), index + 2 < scalars.count + 0,
                    let value = UInt8(String(decoding: scalars[index + 1...index + 2], as: UTF8.self), radix: 16)
                {
                    bytes.append(value)
                    index += 3
                } else {
                    bytes.append(scalars[index])
                    index += 1
                }
            }
            if !soft { bytes.append(UInt8(ascii: "\n")) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(arguments: [
        "plain ascii line\n",
        "Évry café — 漢字 🚀 and = signs ==\n",
        String(repeating: "long line of words ", count: 30) + "\n",
        String(repeating: "é", count: 100) + "\n",
        ".\n..leading dots\nFrom the start\n",
        "trailing spaces   \ntab\t\nnone",
        "<script>alert(1)</script>\r\n",
        "<td style=\"padding:2px 12px 2px 0;vertical-align:top\">" + String(repeating: "Name = x ", count: 20)
            + "</td>\n",
    ])
    func quotedPrintableRoundTripsInShortSafeLines(text: String) {
        let encoded = MailMessage.quotedPrintable(text)
        let lines = encoded.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.allSatisfy { $0.utf8.count <= 76 }, "\(encoded)")
        #expect(encoded.utf8.allSatisfy { ($0 >= 32 && $0 < 127) || $0 == 10 || $0 == 9 })
        #expect(!lines.contains { $0.hasPrefix(".") || $0.hasPrefix("From ") }, "sendmail and mbox")
        #expect(!lines.contains { $0.hasSuffix(" ") || $0.hasSuffix("\t") })
        // No soft break comes early: a line broken with "=" is full, the next octet or "=XX" would not have fitted.
        for (line, next) in zip(lines, lines.dropFirst()) where line.hasSuffix("=") && !next.isEmpty {
            let nextSize = next.hasPrefix("=") ? 3 : 1
            #expect(line.utf8.count - 1 + nextSize > 75, "broken at \(line.utf8.count) octets: \(line)")
        }
        let expected = text.hasSuffix("\n") ? text : text + "\n"
        #expect(
            Self.decodeQuotedPrintable(encoded) == expected + "\n" || Self.decodeQuotedPrintable(encoded) == expected)
    }

    @Test func headersEncodeNonASCIIInWordsAndFoldLongOnes() {
        let subject = MailMessage.header(
            "Subject", "Projets de conception — équipe 漢字 🚀: 3 overdue, 5 due soon, 2 done")
        let lines = subject.split(separator: "\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 78 && $0.utf8.allSatisfy { $0 < 128 } })
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(" =?UTF-8?B?") })
        let decoded = lines.map { line in
            line.split(separator: " ").filter { $0.hasPrefix("=?UTF-8?B?") }.map { word in
                String(decoding: Data(base64Encoded: String(word.dropFirst(10).dropLast(2)))!, as: UTF8.self)
            }.joined()
        }.joined()
        #expect(decoded == "Projets de conception — équipe 漢字 🚀: 3 overdue, 5 due soon, 2 done")
        let ascii = MailMessage.header("Subject", String(repeating: "word ", count: 30))
        #expect(ascii.split(separator: "\n").count > 1)
        #expect(ascii.split(separator: "\n").allSatisfy { $0.count <= 78 })
    }

    /// The header writer is the last guard: whatever reaches it, no control character is written raw, so no value can
    /// end its header and start another.
    @Test(arguments: [
        "x\r\nBcc: a@b.c", "x\nBcc: a@b.c", "x\rBcc: a@b.c", "tab\there", "bell\u{7} esc\u{1B}[2J nul\u{0} del\u{7F}",
        "next line\u{85}Bcc: a@b.c", "Design projects\r\n\r\nbody",
    ])
    func aHeaderValueNeverCarriesAControlCharacterRaw(value: String) {
        let header = MailMessage.header("Subject", value)
        #expect(header.hasSuffix("\n"))
        let lines = header.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.hasPrefix("Subject: ") == true, "\(header)")
        // Folded lines continue the header (they start with a space); none is empty, none starts another header.
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(" ") && $0.count > 1 }, "\(header)")
        #expect(!header.contains("Bcc:"), "\(header)")
        #expect(header.utf8.allSatisfy { ($0 >= 32 && $0 < 127) || $0 == 10 }, "\(header)")
        // And the value is still there, for a mail client to decode.
        let decoded = lines.flatMap { $0.split(separator: " ") }.filter { $0.hasPrefix("=?UTF-8?B?") }.map { word in
            String(decoding: Data(base64Encoded: String(word.dropFirst(10).dropLast(2))) ?? Data(), as: UTF8.self)
        }.joined()
        #expect(decoded == value)
    }

    @Test(arguments: [
        ("lead@example.com", "lead@example.com"),
        ("root@localhost", "root@localhost"),
        ("  Lead Name <lead@example.com> ", "\"Lead Name\" <lead@example.com>"),
        ("\"A \\\"B\\\"\" <a@example.com>", "\"A \\\\\\\"B\\\\\\\"\" <a@example.com>"),
        ("Zoë <z@example.com>", "=?UTF-8?B?Wm/Dqw==?= <z@example.com>"),
    ])
    func mailboxesAreWrittenInHeaderForm(typed: String, header: String) {
        #expect(MailMessage.mailbox(typed) == header)
    }

    @Test(arguments: [
        "", "lead", "@example.com", "lead@", "lead@example.", "a@example.com, b@example.com", "a b@example.com",
        "lead@example.com\nBcc: all@example.com", "Name <lead@example.com\r\nBcc: x@y.z>",
    ])
    func whatIsNotOneAddressIsRefused(typed: String) {
        #expect(MailMessage.mailbox(typed) == nil)
    }

    @Test func theDateIsRFC5322InTheLocalZone() {
        let instant = Date(timeIntervalSince1970: 1_795_510_800)  // 2026-11-24 09:00:00 UTC, a Tuesday
        #expect(MailMessage.date(instant, in: Zone(identifier: "UTC")!) == "Tue, 24 Nov 2026 09:00:00 +0000")
        #expect(
            MailMessage.date(instant, in: Zone(identifier: "America/New_York")!)
                == "Tue, 24 Nov 2026 04:00:00 -0500")
        #expect(
            MailMessage.date(instant, in: Zone(identifier: "Asia/Kolkata")!) == "Tue, 24 Nov 2026 14:30:00 +0530")
    }

    @Test func aMessageIsMultipartAlternativeWithBothBodies() {
        let message = MailMessage(
            from: "tracker@example.com", to: ["a@example.com", "b@example.com"], subject: "T: 1 overdue",
            date: "Tue, 24 Nov 2026 08:20:00 +0000", messageID: "<x@example.com>", text: "Überfällig\n.\n",
            html: "<p>Überfällig</p>\n", boundary: "=_tracker_b")
        let text = message.rendered()
        let (head, body) = (text.components(separatedBy: "\n\n")[0], text)
        for line in [
            "From: tracker@example.com", "To: a@example.com, b@example.com", "Subject: T: 1 overdue",
            "MIME-Version: 1.0", "Content-Type: multipart/alternative; boundary=\"=_tracker_b\"",
        ] {
            #expect(head.split(separator: "\n").contains(Substring(line)), "\(line)")
        }
        let parts = body.components(separatedBy: "\n--=_tracker_b")
        #expect(parts.count == 4, "preamble, text, html, closing")
        #expect(parts[1].contains("Content-Type: text/plain; charset=utf-8"))
        #expect(parts[2].contains("Content-Type: text/html; charset=utf-8"))
        #expect(parts[1].contains("\n\n=C3=9Cberf=C3=A4llig\n=2E\n"))
        #expect(parts[3] == "--\n")
        #expect(!text.split(separator: "\n").contains { $0.utf8.count > 78 })
    }
}
