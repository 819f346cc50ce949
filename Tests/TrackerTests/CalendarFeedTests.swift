import Foundation
import Testing

@testable import TrackerModel
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct CalendarFeedTests {
    static let calendar = ICalendar(baseID: "appBASE", tableID: "tblTABLE", tableName: "Design projects")

    static func project(name: String, notes: String? = nil, due: String? = "2026-12-31") -> Project {
        Project(
            id: "recAAAAAAAAAAAAAA", createdTime: "2026-01-02T03:04:05.000Z", name: name,
            due: due.flatMap(CalendarDate.init), lead: Collaborator(id: "usr1", name: "Ana Díaz", email: "a@b.c"),
            notes: notes)
    }

    /// RFC 5545 3.1: the lines again, unfolded (CRLF and one space removed).
    /// Done on octets, as a parser does: a fold may sit before a combining mark, which a String search would see as
    /// one character with the space.
    static func unfolded(_ text: String) -> [String] {
        var octets: [UInt8] = []
        var lines: [String] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 13, index + 1 < bytes.count, bytes[index + 1] == 10 {
                if index + 2 < bytes.count, bytes[index + 2] == 32 {
                    index += 3
                    continue
                }
                lines.append(String(decoding: octets, as: UTF8.self))
                octets = []
                index += 2
                continue
            }
            octets.append(bytes[index])
            index += 1
        }
        return lines
    }

    /// A TEXT value read back: the escapes undone.
    static func unescaped(_ value: Substring) -> String {
        var result = ""
        var escaping = false
        for character in value {
            if escaping {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    @Test func anEventIsAnAllDayEventOnTheDueDateNamedByRecordAndBase() {
        let lines = Self.unfolded(Self.calendar.event(Self.project(name: "Logo")))
        #expect(
            lines == [
                "BEGIN:VEVENT", "UID:recAAAAAAAAAAAAAA@appBASE", "DTSTAMP:20260102T030405Z",
                "DTSTART;VALUE=DATE:20261231", "DTEND;VALUE=DATE:20270101", "SUMMARY:Logo",
                #"DESCRIPTION:Status: not complete\nLead: Ana Díaz"#,
                "URL;VALUE=URI:https://airtable.com/appBASE/tblTABLE/recAAAAAAAAAAAAAA", "TRANSP:TRANSPARENT",
                "END:VEVENT",
            ])
    }

    @Test func noDueDateNoEventAndNoTableIDNoAddress() {
        #expect(Self.calendar.event(Self.project(name: "X", due: nil)).isEmpty)
        let calendar = ICalendar(baseID: "appBASE", tableID: nil, tableName: "Design projects")
        #expect(!calendar.event(Self.project(name: "X")).contains("URL"))
    }

    @Test(arguments: [
        "<script>alert(1)</script>", "a, b; c\\d", "*_[|` markdown", "line one\nline two\r\nthree\rfour",
        "🚀👩‍💻 宽字符 " + String(repeating: "é", count: 80), String(repeating: "x", count: 300),
        "e" + String(repeating: "\u{301}", count: 60),
    ])
    func everyNameComesBackAsTextFromLinesOfAtMost75Octets(name: String) throws {
        let text =
            Self.calendar.header + Self.calendar.event(Self.project(name: name, notes: name)) + Self.calendar.footer
        let octets = Array(text.utf8)
        // CRLF only, no line over 75 octets, and no fold inside a UTF-8 sequence (each line decodes alone).
        for line in octets.split(separator: 10, omittingEmptySubsequences: false) {
            // Each line ends in CR (the LF split it off) but the last, which is empty.
            #expect(line.count <= 76 && (line.isEmpty || line.last == 13), "\(line.count) octets")
            #expect(!line.dropLast().contains(13))
            #expect(String(validating: Array(line), as: UTF8.self) != nil, "a fold inside a UTF-8 sequence")
        }
        // And no fold comes early: a folded line is full, its next character would not have fitted.
        let physical = octets.split(separator: 10).map { Array($0.dropLast()) }
        for (line, next) in zip(physical, physical.dropFirst()) where next.first == 32 {
            let lead = next[1]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            #expect(line.count + length > 75, "folded at \(line.count) octets before a \(length)-octet character")
        }
        #expect(octets.suffix(2) == [13, 10])
        let lines = Self.unfolded(text)
        let summary = try #require(lines.first { $0.hasPrefix("SUMMARY:") })
        let expected = name.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        #expect(Self.unescaped(summary.dropFirst("SUMMARY:".count)) == expected)
        let description = try #require(lines.first { $0.hasPrefix("DESCRIPTION:") })
        #expect(Self.unescaped(description.dropFirst("DESCRIPTION:".count)).hasSuffix("\n\n" + expected))
        #expect(lines.first == "BEGIN:VCALENDAR" && lines.last == "END:VCALENDAR")
    }

    /// RFC 5545 §3.3.11, read on the raw lines: a reader that forgives a bare `;` or `,` would hide a missing escape.
    @Test func backslashSemicolonAndCommaAreEscapedInTheRawLines() throws {
        let lines = Self.unfolded(Self.calendar.event(Self.project(name: #"a, b; c\d"#, notes: #"x;y,z\w"#)))
        #expect(lines.contains(#"SUMMARY:a\, b\; c\\d"#), "\(lines)")
        let description = try #require(lines.first { $0.hasPrefix("DESCRIPTION:") })
        #expect(description.hasSuffix(#"\n\nx\;y\,z\\w"#), "\(description)")
        // Every `;` and `,` of a TEXT value is preceded by a backslash that is not itself escaped.
        for line in [description, try #require(lines.first { $0.hasPrefix("SUMMARY:") })] {
            let value = Array(line.drop { $0 != ":" }.dropFirst())
            var escaped = false
            for character in value {
                if !escaped { #expect(character != ";" && character != ",", "raw \(character) in \(line)") }
                escaped = !escaped && character == "\\"
            }
        }
    }

    @Test func controlCharactersFromAirtableNeverReachTheFile() {
        let event = Self.calendar.event(Self.project(name: "a\u{1B}[2Jb\u{7}c\u{0}d"))
        #expect(!event.unicodeScalars.contains { ControlCharacters.isControl($0) && $0 != "\r" && $0 != "\n" })
        #expect(event.contains("SUMMARY:a^[[2Jb^Gc^@d"))
    }

    @Test func theSameProjectsGiveTheSameBytes() {
        let first = Self.calendar.event(Self.project(name: "Logo"))
        let second = Self.calendar.event(Self.project(name: "Logo"))
        #expect(first == second)
        #expect(ICalendar.timestamp("not a time") == "19700101T000000Z")
    }

    @Test func aFileWithTheSameContentIsLeftUntouchedAndAChangedOneReplacedWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tracker-ics-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/projects.ics"
        #expect(try ReplacedFile.write(Data("one".utf8), to: path, naming: "--out"))
        chmod(path, 0o640)
        var before = stat()
        stat(path, &before)
        #expect(try !ReplacedFile.write(Data("one".utf8), to: path, naming: "--out"))
        var same = stat()
        stat(path, &same)
        #expect(same.st_ino == before.st_ino && same.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        #expect(try ReplacedFile.write(Data("two".utf8), to: path, naming: "--out"))
        var after = stat()
        stat(path, &after)
        #expect(after.st_ino != before.st_ino, "renamed over, not written in place")
        #expect(after.st_mode & 0o777 == 0o640, "the file keeps its permissions")
        #expect(FileManager.default.contents(atPath: path) == Data("two".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["projects.ics"])
        #expect(throws: AppError.self) { try ReplacedFile.write(Data(), to: directory + "/no/such", naming: "--out") }
    }
}

extension ICalendar {
    /// The project's event as text, or nothing when it has no due date.
    func event(_ project: Project) -> String {
        var lines = ContentLines()
        appendEvent(project, to: &lines)
        return String(decoding: lines.bytes, as: UTF8.self)
    }
}
