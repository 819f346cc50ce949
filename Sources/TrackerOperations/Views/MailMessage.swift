#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// A whole RFC 5322 message with a text and an HTML alternative, in UTF-8, ready for `sendmail -t`.
///
/// Lines end in LF, as `sendmail` reads them on standard input (it writes CRLF on the wire). Bodies are
/// quoted-printable, so no line passes 76 octets and a line holding only "." cannot end the message early.
package struct MailMessage {
    package var from: String
    package var to: [String]
    package var subject: String
    package var date: String
    package var messageID: String
    package var text: String
    package var html: String
    package var boundary: String

    /// The message's bytes as text (every byte ASCII).
    package func rendered() -> String {
        var head = Self.header("From", from) + Self.header("To", to.joined(separator: ", "))
        head += Self.header("Subject", subject)
        head += "Date: \(date)\nMessage-ID: \(messageID)\n"
        // RFC 3834: a report from a program; vacation responders leave it alone.
        head += "Auto-Submitted: auto-generated\nMIME-Version: 1.0\n"
        head += "Content-Type: multipart/alternative; boundary=\"\(boundary)\"\n\n"
        head += "This is a message in MIME format: the same report as text and as HTML.\n"
        // One buffer for the whole message, sized for the bodies and their encoding (an HTML body's `=` take three
        // octets, and a soft break comes every 75): a mail of 30,000 projects is not grown and copied part by part.
        var out: [UInt8] = []
        out.reserveCapacity(head.utf8.count + (text.utf8.count + html.utf8.count) * 6 / 5 + 512)
        out += head.utf8
        for (type, body) in [("plain", text), ("html", html)] {
            out += "\n--\(boundary)\nContent-Type: text/\(type); charset=utf-8\n".utf8
            out += "Content-Transfer-Encoding: quoted-printable\n\n".utf8
            Self.appendQuotedPrintable(body, to: &out)
        }
        out += "\n--\(boundary)--\n".utf8
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Bodies

    /// RFC 2045 quoted-printable of UTF-8 text: lines at most 76 octets with soft breaks, `=`, controls and non-ASCII
    /// as `=XX`, spaces before a line end encoded, and a leading "." or "From " encoded for sendmail and mbox files.
    package static func quotedPrintable(_ text: String) -> String {
        var out: [UInt8] = []
        appendQuotedPrintable(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `quotedPrintable(text)` to `out`, reading the text's UTF-8 where it is: a body is neither copied into
    /// an array nor split into a list of lines first.
    package static func appendQuotedPrintable(_ text: String, to out: inout [UInt8]) {
        // A final line break ends the last line; it does not begin an empty one.
        let endsWithBreak = text.hasSuffix("\n")
        var text = text
        text.withUTF8 { bytes in
            var lineStart = 0
            while true {
                let lineEnd = bytes[lineStart...].firstIndex(of: 10) ?? bytes.count
                if lineEnd == bytes.count && lineStart == bytes.count && endsWithBreak { break }
                appendQuotedPrintable(line: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), to: &out)
                guard lineEnd < bytes.count else { break }
                lineStart = lineEnd + 1
            }
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)
    private static let from = Array("From ".utf8)

    /// One line of text, without its break, as quoted-printable lines ending in LF.
    private static func appendQuotedPrintable(line: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var length = 0
        var index = 0
        /// Whether the byte at `index` stays itself, as far as the line's end is concerned.
        func isPlain(_ index: Int) -> Bool {
            let byte = line[index]
            return (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "="))
                || ((byte == 32 || byte == 9) && index != line.count - 1)
        }
        while index < line.count {
            // A run of bytes that stay themselves and fit the line, copied at once: one byte at a time was a tenth of
            // a mail of 30,000 projects. The line's first byte is left to the checks below (".", "From ").
            if length > 0 {
                var end = index
                while end < line.count, end - index < 75 - length, isPlain(end) { end += 1 }
                if end > index {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: line[index..<end]))
                    length += end - index
                    index = end
                    continue
                }
            }
            let byte = line[index]
            // A line must not start with "." (sendmail's end of input) or "From " (mbox's next message).
            let guarded =
                length == 0
                && (byte == UInt8(ascii: ".")
                    || (line.count - index >= 5 && line[index..<index + 5].elementsEqual(from)))
            let literal = !guarded && isPlain(index)
            let size = literal ? 1 : 3
            if length + size > 75 {
                out.append(UInt8(ascii: "="))
                out.append(10)
                length = 0
                continue  // the byte is weighed again at the start of the new line
            }
            if literal {
                out.append(byte)
            } else {
                // Three appends, not an array literal: this runs for every byte of a large report.
                out.append(UInt8(ascii: "="))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            }
            length += size
            index += 1
        }
        out.append(10)
    }

    // MARK: - Headers

    /// `Name: value`, with non-ASCII in RFC 2047 encoded words and long values folded, ending in a newline.
    package static func header(_ name: String, _ value: String) -> String {
        let isPlain = value.unicodeScalars.allSatisfy { $0.value >= 32 && $0.value < 127 }
        guard isPlain else {
            // The first word shares its line with the header's name; lines stay within 78 characters.
            let first = min(45, (78 - name.count - 2 - 12) / 4 * 3)
            return "\(name): " + encodedWords(value, firstLimit: first).joined(separator: "\n ") + "\n"
        }
        var out = "\(name):"
        var lineLength = out.count
        for word in value.split(separator: " ", omittingEmptySubsequences: false) {
            if lineLength + 1 + word.count > 78 && lineLength > name.count + 1 {
                out += "\n"
                lineLength = 0
            }
            out += " " + word
            lineLength += 1 + word.count
        }
        return out + "\n"
    }

    /// `=?UTF-8?B?…?=` words of at most 45 octets of text each (72 characters; the first `firstLimit`), never
    /// splitting a character.
    package static func encodedWords(_ text: String, firstLimit: Int = 45) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        func flush() {
            if !chunk.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
            chunk = []
        }
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > (words.isEmpty ? firstLimit : 45) { flush() }
            chunk += bytes
        }
        flush()
        return words
    }

    /// A mailbox as typed (`lead@example.com` or `Lead Name <lead@example.com>`) in header form, or nil when it is
    /// not one address: no control characters, commas or spaces in the address, an `@` with text either side (`root@localhost` is one).
    package static func mailbox(_ typed: String) -> String? {
        let text = typed.trimmingWhitespace()
        guard !text.unicodeScalars.contains(where: { $0.value < 32 || $0.value == 127 }) else { return nil }
        var name = "", address = text
        if text.hasSuffix(">"), let open = text.lastIndex(of: "<") {
            name = text[..<open].trimmingWhitespace()
            address = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !parts[1].hasSuffix("."),
            address.unicodeScalars.allSatisfy({
                $0.value > 32 && $0.value < 127 && !"<>(),;:\\\"[] ".unicodeScalars.contains($0)
            })
        else { return nil }
        if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
        guard !name.isEmpty else { return address }
        if !name.unicodeScalars.allSatisfy({ $0.isASCII }) {
            return encodedWords(name).joined(separator: " ") + " <\(address)>"
        }
        let quoted = name.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        return "\"\(quoted)\" <\(address)>"
    }

    /// RFC 5322's date: `Tue, 24 Nov 2026 07:00:00 +0100`, in `timeZone`.
    package static func date(_ instant: Date, in timeZone: Zone) -> String {
        let offset = timeZone.secondsFromGMT(for: instant)
        let (day, seconds) = timeZone.local(instant)
        let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let zone = (offset < 0 ? "-" : "+") + two(abs(offset) / 3600) + two(abs(offset) / 60 % 60)
        return "\(weekdays[day.weekdayIndex]), \(day.day) \(months[day.month - 1]) \(day.year) "
            + "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60)) \(zone)"
    }
    /// Each stored value given.
    package init(
        from: String, to: [String], subject: String, date: String, messageID: String, text: String, html: String,
        boundary: String
    ) {
        self.from = from
        self.to = to
        self.subject = subject
        self.date = date
        self.messageID = messageID
        self.text = text
        self.html = html
        self.boundary = boundary
    }
}
