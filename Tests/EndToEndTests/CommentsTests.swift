import FakeAirtable
import Foundation
import XCTest

/// `tracker comment` and `tracker comments` (docs/contract.md "Comments") against the fake's comment routes.
final class CommentsTests: FakeAirtableTestCase {
    static let gal = (id: "usr3VLCpyqgcI46Sh", name: "Gal Samari", email: "katherineduh+collab10@demo.htable.com")

    private var lemon: String {
        fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Lemon headband" }!["id"]
            as! String
    }

    private var commentRequests: [FakeAirtable.LogEntry] { fake.recordLog.filter { $0.path.hasSuffix("/comments") } }

    /// `count` comments on Lemon headband, a minute apart, the first by Gal.
    private func startWithComments(_ count: Int, options: FakeAirtable.Options = .init()) throws {
        var options = options
        let records = FakeAirtable.recordedProjects
        let id = records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Lemon headband" }!["id"]
        var seeded: [FakeComment] = []
        for index in 0..<count {
            let hour = index / 60, minute = index % 60
            let time = String(format: "2026-11-01T%02d:%02d:00.000Z", hour, minute)
            let commentID = String(format: "comSEED%010d", index)
            seeded.append(FakeComment(id: commentID, author: Self.gal, text: "note \(index + 1)", createdTime: time))
        }
        options.comments[id as! String] = seeded
        try startFake(records: records, options: options)
    }

    func testACommentIsPostedOnceWithEmailsAsMentions() throws {
        try startFake()
        let run = tracker()
        let result = try run.run([
            "comment", "Lemon headband", "Proofs are in, @\(Self.gal.email.uppercased()). Thanks @team",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let stored = fake.comments(on: lemon)
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(result.stdout, (stored[0]["id"] as! String) + "\n")
        XCTAssertEqual(stored[0]["text"] as? String, "Proofs are in, @[\(Self.gal.id)]. Thanks @team")
        let quiet = try run.run(["comment", lemon, "again", "-q"])
        XCTAssertEqual(quiet.stdout, "")
        let json = try run.run(["comment", lemon, "as json", "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["text"] as? String, "as json")
        let before = commentRequests.count
        let dry = try run.run(["comment", lemon, "not sent", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.hasPrefix("POST /v0/\(fake.options.baseID)/Design projects/\(lemon)/comments\n"))
        XCTAssertEqual(commentRequests.count, before)
        XCTAssertEqual(fake.comments(on: lemon).count, 3)
    }

    func testAPostWhoseAnswerIsLostIsFoundNotSentAgain() throws {
        try startFake()
        let run = tracker()
        XCTAssertEqual(try run.run(["list"]).status, 0)
        fake.inject(.applyThenDrop, onRequest: 2)  // 1: the project's lookup; 2: the POST
        let result = try run.run(["comment", lemon, "exactly once"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(fake.comments(on: lemon).count, 1, "never two comments for one command")
        XCTAssertEqual(result.stdout, (fake.comments(on: lemon)[0]["id"] as! String) + "\n")
        XCTAssertEqual(commentRequests.filter { $0.method == "POST" }.count, 1)
    }

    func testEmptyTextIs64AndAnUnknownProjectIs66() throws {
        try startFake()
        assertFailure(try tracker().run(["comment", lemon, " \n"]), status: 64, "the comment is empty")
        assertFailure(try tracker().run(["comment", "No such project", "hi"]), status: 66, "no project")
        assertFailure(try tracker().run(["comment", lemon]), status: 64, "comment needs the text")
        let fromStdin = try tracker().run(["comment", lemon, "--file", "-"], stdin: "from a pipe\n")
        XCTAssertEqual(fromStdin.status, 0, fromStdin.stderr)
        XCTAssertEqual(fake.comments(on: lemon).last?["text"] as? String, "from a pipe")
    }

    func testEveryPageIsReadAndShownOldestFirst() throws {
        try startWithComments(250)
        let run = tracker()
        let result = try run.run(["comments", "Lemon headband"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, 250)
        XCTAssertEqual(
            result.lines.first?.split(separator: "\t").map(String.init),
            [
                "comSEED0000000000", "2026-11-01T00:00:00.000Z", Self.gal.email, "note 1",
            ])
        XCTAssertTrue(result.lines.last?.hasSuffix("\tnote 250") == true)
        XCTAssertEqual(commentRequests.count, 3, "pages of 100")
        let newest = try run.run(["comments", lemon, "--limit", "5", "--format", "ndjson"])
        let texts = try newest.lines.map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["text"] as? String
        }
        XCTAssertEqual(texts, ["note 246", "note 247", "note 248", "note 249", "note 250"])
        XCTAssertEqual(commentRequests.count, 4, "the newest five in one request")
    }

    func testShowOnATerminalEndsWithTheThreeNewestReadBesideTheRecord() throws {
        var options = FakeAirtable.Options()
        options.latency = 0.3
        try startWithComments(7, options: options)
        // Unpaced, so the order in which four requests take their turns under 5 a second (which a loaded machine
        // shuffles) cannot put the comments after the record's answer: what is checked is that they do not wait for it.
        let run = try configuredTracker(#""requestsPerSecond": 100"#)
        XCTAssertEqual(try run.run(["list"]).status, 0)
        let before = fake.recordLog.count
        let (status, screen) = try onATerminal(["show", lemon], run)
        XCTAssertEqual(status, 0, screen)
        XCTAssertTrue(screen.contains("note 5") && screen.contains("note 7"), screen)
        XCTAssertFalse(screen.contains("note 4"), screen)
        XCTAssertTrue(screen.contains("all: tracker comments \(lemon)"), screen)
        let sent = Array(fake.recordLog.dropFirst(before))
        // The record, its comments and the linked tables' names, all sent together.
        XCTAssertTrue(sent.contains { $0.path.hasSuffix("/comments") }, "\(sent.map(\.path))")
        let lookup = try XCTUnwrap(sent.first { $0.path.hasSuffix("/Design projects") })
        let comments = try XCTUnwrap(sent.first { $0.path.hasSuffix("/comments") })
        XCTAssertLessThan(comments.received, lookup.time, "the comments went out before the record came back")
        let piped = try run.run(["show", lemon])
        XCTAssertFalse(piped.stdout.contains("note 7"), "piped, show is unchanged")
    }

    func testWithoutTheScopeCommentsAre77NamingIt() throws {
        var options = FakeAirtable.Options()
        options.grantsCommentScopes = false
        try startFake(options: options)
        assertFailure(try tracker().run(["comments", lemon]), status: 77, "data.recordComments:read")
        assertFailure(try tracker().run(["comment", lemon, "hi"]), status: 77, "data.recordComments:write")
        XCTAssertEqual(try tracker().run(["show", lemon]).status, 0, "everything else works without it")
    }

    func testHostileAndLongTextStayOnTheirLine() throws {
        try startFake()
        let run = tracker()
        let hostile = "line one\n\u{1B}[2J\tcleared?\u{07}"
        XCTAssertEqual(try run.run(["comment", lemon, hostile]).status, 0)
        let long = String(repeating: "é", count: 100_000)
        XCTAssertEqual(try run.run(["comment", lemon, "--file", "-"], stdin: long).status, 0)
        let tsv = try run.run(["comments", lemon])
        XCTAssertEqual(tsv.lines.count, 2)
        XCTAssertFalse(tsv.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        XCTAssertTrue(tsv.lines[0].hasSuffix("line one ^[[2J cleared?^G"), tsv.lines[0])
        XCTAssertEqual(tsv.lines[1].split(separator: "\t").last?.count, 100_000)
        let (status, screen) = try onATerminal(["comments", lemon], run, columns: 60)
        XCTAssertEqual(status, 0, screen)
        XCTAssertFalse(screen.contains("\u{1B}[2J"))
        XCTAssertTrue(screen.contains("Fake User"), screen)
    }
}
