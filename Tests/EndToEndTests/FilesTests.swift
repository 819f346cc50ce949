import FakeAirtable
import Foundation
import XCTest

/// `attach` and `files`: uploads exactly once, downloads that stay inside their directory, never carry the token and
/// never leave half a file under its name.
final class FilesTests: FakeAirtableTestCase {
    static let cmca = "rec3g0Xxmw2rw3scs"  // three recorded images
    static let coffee = "recPsjO1tkEyBCF7y"

    override func setUpWithError() throws {
        try startFake()
    }

    /// The cell as the fake holds it now.
    func images(_ record: String = cmca, field: String = "Project images", table: String = "Design projects")
        -> [[String: Any]]
    {
        let record = fake.records(inTable: table).first { $0["id"] as? String == record }
        return (record?["fields"] as? [String: Any])?[field] as? [[String: Any]] ?? []
    }

    func write(_ bytes: Data, _ name: String, in process: TrackerProcess) throws -> String {
        let path = process.runtimeDirectory + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    var uploads: [FakeAirtable.LogEntry] { fake.recordLog.filter { $0.path.hasSuffix("/uploadAttachment") } }

    // MARK: - attach

    func testAttachUploadsEachFileOnceKeepsTheOthersAndPrintsTheNewIDs() throws {
        let process = tracker()
        let png = Self.bytes(2000)
        _ = try write(png, "mockup.png", in: process)
        _ = try write(Self.bytes(300, seed: 9), "brief.PDF", in: process)
        let result = try process.run(["attach", "CMCA brand identity", "mockup.png", "brief.PDF"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let cell = images()
        XCTAssertEqual(cell.count, 5, "the three recorded images stay")
        XCTAssertEqual(cell.suffix(2).map { $0["filename"] as? String }, ["mockup.png", "brief.PDF"])
        XCTAssertEqual(result.lines, cell.suffix(2).compactMap { $0["id"] as? String })
        XCTAssertEqual(uploads.count, 2)
        // The name's lookup brings the cell as it was: then only the uploads.
        XCTAssertEqual(fake.recordLog.count, 3, fake.recordLog.map(\.path).description)
        // Base64 JSON with the type the extension says, whatever its case, and the file's base name.
        let bodies = uploads.map { try? JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: String] }
        XCTAssertEqual(bodies.map { $0?["contentType"] }, ["image/png", "application/pdf"])
        XCTAssertEqual(bodies.first??["file"].flatMap { Data(base64Encoded: $0) }, png)
        XCTAssertEqual(bodies.first??["filename"], "mockup.png")
        // Through the upload route, keyed by the field's id.
        XCTAssertTrue(uploads[0].path.hasPrefix("/v0/\(fake.options.baseID)/\(Self.cmca)/fld"), uploads[0].path)

        let json = try process.run(["attach", "CMCA brand identity", "mockup.png", "--json"])
        let objects = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(objects?.first?["filename"] as? String, "mockup.png")
        XCTAssertEqual(objects?.first?["size"] as? Int, 2000)
        XCTAssertEqual(images().count, 6)
        let quiet = try process.run(["attach", "CMCA brand identity", "mockup.png", "-q"])
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stdout, "")
    }

    func testEveryFileIsCheckedBeforeAnythingIsSent() throws {
        let process = tracker()
        _ = try write(Self.bytes(10), "ok.png", in: process)
        _ = try write(Self.bytes(5 * 1024 * 1024 + 1), "big.png", in: process)
        try FileManager.default.createDirectory(
            atPath: process.runtimeDirectory + "/folder", withIntermediateDirectories: true)
        let cases: [([String], Int32, String)] = [
            (["ok.png", "big.png"], 64, "big.png is 5 MB (5,242,881 bytes); Airtable's upload takes at most 5 MB"),
            (["ok.png", "folder"], 64, "folder is a directory, not a file"),
            (["ok.png", "/dev/null"], 64, "/dev/null is not a regular file"),
            (["ok.png", "missing.png"], 66, "missing.png does not exist"),
            (["https://example.com/a.png"], 64, "is an address, not a file"),
        ]
        for (files, status, message) in cases {
            let result = try process.run(["attach", "CMCA brand identity"] + files)
            assertFailure(result, status: status, message)
        }
        XCTAssertEqual(uploads.count, 0, "nothing of a failed batch is sent")
        XCTAssertEqual(images().count, 3)
    }

    func testAnUploadWhoseAnswerIsLostIsLookedForNotSentAgain() throws {
        let process = tracker()
        _ = try write(Self.bytes(4000), "once.png", in: process)
        fake.inject(.applyThenDrop, onNextRequestEndingWith: "/uploadAttachment")
        let result = try process.run(["attach", "CMCA brand identity", "once.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(uploads.count, 1, "sent once")
        let added = images().filter { $0["filename"] as? String == "once.png" }
        XCTAssertEqual(added.count, 1, "one copy")
        XCTAssertEqual(result.lines, [added.first?["id"] as? String ?? "?"])
    }

    func testAnUploadThatNeverArrivesIsReportedAsUnknownNotSentAgain() throws {
        let process = tracker()
        _ = try write(Self.bytes(4000), "lost.png", in: process)
        // Reset before the fake applies anything: the answer is lost, and so is the file.
        fake.inject(.reset, onNextRequestEndingWith: "/uploadAttachment")
        let result = try process.run(["attach", "CMCA brand identity", "lost.png"], limit: 90)
        assertFailure(result, status: 75, "the answer to uploading \"lost.png\" was lost")
        XCTAssertTrue(result.stderr.contains("tracker files PROJECT"), result.stderr)
        XCTAssertEqual(uploads.count, 1, "never sent again")
        XCTAssertEqual(images().count, 3)
    }

    func testALostUploadIsNeverTakenForTheSameFileAttachedBefore() throws {
        for owner in [["CMCA brand identity"], [Self.cmca]] {
            let process = tracker()
            let bytes = Self.bytes(4000, seed: 11)
            _ = try write(bytes, "again.png", in: process)
            // The same file is on the record already; this upload's answer is lost and it never arrived.
            fake.attach(bytes, filename: "again.png", type: "image/png", toRecord: Self.cmca, field: "Project images")
            fake.inject(.reset, onNextRequestEndingWith: "/uploadAttachment")
            let result = try process.run(["attach"] + owner + ["again.png"], limit: 90)
            assertFailure(result, status: 75, "the answer to uploading \"again.png\" was lost")
        }
    }

    func testDryRunShowsTheSizeNotTheBytesAndSendsNothing() throws {
        let process = tracker()
        _ = try write(Self.bytes(1234), "draft.png", in: process)
        let result = try process.run(["attach", "CMCA brand identity", "draft.png", "--dry-run"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("POST \(fake.endpoint)/v0/\(fake.options.baseID)/\(Self.cmca)/"))
        XCTAssertTrue(result.stdout.contains("<1234 bytes of draft.png, base64>"), result.stdout)
        XCTAssertEqual(uploads.count, 0)
    }

    func testAClientsLogoIsReachedWithClient() throws {
        let process = tracker()
        _ = try write(Self.bytes(500), "logo.png", in: process)
        let clientID = "rectEfoe4zYOn8xDM"  // Client 1
        let result = try process.run(["attach", "--client", "Client 1", "logo.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let logo = images(clientID, field: "Logo", table: "Clients")
        XCTAssertEqual(logo.map { $0["filename"] as? String }, ["logo.png"])
        let listed = try process.run(["files", "--client", "Client 1"])
        XCTAssertEqual(
            listed.lines.map { $0.split(separator: "\t").prefix(3).joined(separator: " ") },
            [
                "\(logo[0]["id"] as? String ?? "") logo.png 500"
            ])
    }

    // MARK: - files

    func testFilesListsTheAttachmentsAsTSVAndJSON() throws {
        let process = tracker()
        let result = try process.run(["files", "CMCA brand identity"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = result.lines.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(
            rows[0].prefix(4),
            [
                "attm5HZ4mDsQkfxvz", "pexels-photo-2261165.jpeg?auto=compress&cs=tinysrgb&dpr=1&w=500", "22616",
                "image/jpeg",
            ])
        XCTAssertTrue(rows[0][4].hasPrefix(fake.files.origin + "/v5/"), rows[0][4])
        let json = try process.run(["files", "CMCA brand identity", "--json"])
        let objects = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(objects?.compactMap { $0["id"] as? String }, rows.map { $0[0] })
        XCTAssertNotNil(objects?.first?["thumbnails"], "Airtable's objects as they came")
    }

    func testDownloadSavesEveryFileAndNeverSendsTheToken() throws {
        let process = tracker()
        let png = Self.bytes(70_000, seed: 3)
        fake.attach(png, filename: "photo.png", type: "image/png", toRecord: Self.cmca, field: "Project images")
        let result = try process.run(["files", "CMCA brand identity", "--download", "out"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, 4)
        XCTAssertEqual(result.lines.last, "out/photo.png")
        XCTAssertEqual(FileManager.default.contents(atPath: process.runtimeDirectory + "/out/photo.png"), png)
        let sizes = try FileManager.default.contentsOfDirectory(atPath: process.runtimeDirectory + "/out").map {
            try FileManager.default.attributesOfItem(atPath: process.runtimeDirectory + "/out/" + $0)[.size] as? Int
        }
        XCTAssertEqual(Set(sizes.compactMap { $0 }), [22616, 13675, 55384, 70000])
        XCTAssertEqual(fake.files.log.count, 4)
        XCTAssertTrue(fake.files.log.allSatisfy { $0.authorization == nil }, "the token went to the download host")
        XCTAssertTrue(fake.files.log.allSatisfy { $0.status == 200 })
    }

    func testHostileNamesAreMadeSafeAndNothingIsWrittenOutsideTheDirectory() throws {
        let process = tracker()
        let names = [
            "../../escape.png", ".bashrc", "a/b.png", "bell\u{07}\u{1B}]0;x.png", "same.png", "same.png", "", "-rf",
            "..",
        ]
        for (index, name) in names.enumerated() {
            fake.attach(
                Self.bytes(100 + index), filename: name, type: "image/png", toRecord: Self.coffee,
                field: "Project images")
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: process.runtimeDirectory)
        let result = try process.run(["files", "Coffee packaging", "--download", "in/side"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let written = try FileManager.default.contentsOfDirectory(atPath: process.runtimeDirectory + "/in/side")
            .sorted()
        XCTAssertEqual(written.count, names.count + 3, written.description)
        for name in written {
            XCTAssertFalse(name.hasPrefix(".") || name.hasPrefix("-") || name.contains("/"), name)
            XCTAssertFalse(name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, name)
        }
        XCTAssertTrue(written.contains("same.png") && written.contains("same (2).png"), written.description)
        XCTAssertTrue(
            written.contains("_bashrc") && written.contains("_._.._escape.png") && written.contains("a_b.png"),
            written.description)
        XCTAssertFalse(result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        // Nothing beside or above the directory (tracker's cache and runtime directory aside).
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: process.runtimeDirectory))
        XCTAssertTrue(after.isSubset(of: Set(before + ["in", ".cache", "run"])), after.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: process.runtimeDirectory + "/../escape.png"))
    }

    /// `out/name`, a symbolic link to a file outside `out` that holds "keep me": the directory and the target.
    func plantLink(named name: String, in process: TrackerProcess) throws -> (out: String, target: String) {
        let out = process.runtimeDirectory + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let target = process.runtimeDirectory + "/target.txt"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: out + "/" + name, withDestinationPath: target)
        return (out, target)
    }

    func testNothingIsWrittenThroughASymbolicLink() throws {
        let process = tracker()
        fake.attach(
            Self.bytes(100), filename: "linked.png", type: "image/png", toRecord: Self.coffee, field: "Project images")
        let (out, target) = try plantLink(named: "linked.png", in: process)
        let result = try process.run(["files", "Coffee packaging", "--download", "out"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("out/linked.png"), result.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: target), Data("keep me".utf8))
        let forced = try process.run(["files", "Coffee packaging", "--download", "out", "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: target), Data("keep me".utf8), "the link's target stays")
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/linked.png"), Self.bytes(100))
        XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: out + "/linked.png"))
    }

    func testALinkPlantedWhereTheFileIsWrittenAsideIsNotFollowed() throws {
        let process = tracker()
        let id = fake.attach(
            Self.bytes(100), filename: "aside.png", type: "image/png", toRecord: Self.coffee, field: "Project images")
        let (out, target) = try plantLink(named: ".tracker-\(id).part", in: process)
        let result = try process.run(["files", "Coffee packaging", "--download", "out"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: target), Data("keep me".utf8))
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/aside.png"), Self.bytes(100))
    }

    func testARerunDownloadsOnlyWhatIsMissingAndKeepsADifferentFile() throws {
        let process = tracker()
        let out = process.runtimeDirectory + "/out"
        XCTAssertEqual(try process.run(["files", "CMCA brand identity", "--download", "out"]).status, 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        try FileManager.default.removeItem(atPath: out + "/" + names[0])
        let rerun = try process.run(["files", "CMCA brand identity", "--download", "out"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertEqual(rerun.lines, ["out/" + names[0]])
        XCTAssertEqual(fake.files.log.count, 4, "three, then the one missing")

        try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/" + names[1]))
        let kept = try process.run(["files", "CMCA brand identity", "--download", "out"])
        assertFailure(kept, status: 1, "already there, so it was kept")
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/" + names[1]), Data("mine".utf8))
        let forced = try process.run(["files", "CMCA brand identity", "--download", "out", "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(forced.lines, ["out/" + names[1]])
        XCTAssertNotEqual(FileManager.default.contents(atPath: out + "/" + names[1]), Data("mine".utf8))
    }

    func testAnExpiredAddressReadsTheRecordAgainOnce() throws {
        for status in [403, 410] {
            let process = tracker()
            let reads = fake.recordLog.count
            fake.files.inject(.status(status), onRequest: 1)
            let result = try process.run(["files", "Coffee packaging", "--download", "out"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.lines.count, 3)
            // The name's lookup (the record whole, its cell with it), then the cell once more for fresh addresses.
            XCTAssertEqual(fake.recordLog.count - reads, 2)
        }
        let process = tracker()
        // Every address refused, the fresh ones too (downloads run four at a time).
        for number in 1...8 { fake.files.inject(.status(410), onRequest: number) }
        let twice = try process.run(["files", "Coffee packaging", "--download", "out"])
        assertFailure(twice, status: 69, "even at a fresh address")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: process.runtimeDirectory + "/out"), [])
    }

    func testAFailedTransferNeverLeavesAPartialFileUnderItsName() throws {
        let process = tracker()
        let big = Self.bytes(900_000, seed: 5)
        fake.attach(big, filename: "big.png", type: "image/png", toRecord: Self.coffee, field: "Project images")
        fake.files.inject(.resetMidBody, onRequest: 4)
        let result = try process.run(["files", "Coffee packaging", "--download", "out"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: process.runtimeDirectory + "/out/big.png"), big)

        // Killed in the middle of a transfer: nothing under the final name; the rerun completes it.
        let second = tracker()
        for number in 1...4 { fake.files.inject(.stallBody(seconds: 30), onRequest: number) }
        let (running, _, _) = try second.start(["files", "Coffee packaging", "--download", "out"])
        let deadline = Date().addingTimeInterval(20)
        let logged = fake.files.log.count
        while fake.files.log.count < logged + 4 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 0.3)
        kill(running.processIdentifier, SIGKILL)
        running.waitUntilExit()
        let out = second.runtimeDirectory + "/out"
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        XCTAssertTrue(left.allSatisfy { $0.hasPrefix(".tracker-") }, left.description)
        let rerun = try second.run(["files", "Coffee packaging", "--download", "out"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".") }, [])
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/big.png"), big)
    }

    func testADirectoryIsCreatedAndOneThatCannotBeIsOneLineAndExitOne() throws {
        let process = tracker()
        let made = try process.run(["files", "Coffee packaging", "--download", "new/deeper"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(made.lines.count, 3)
        _ = try write(Data("x".utf8), "plain", in: process)
        let notADirectory = try process.run(["files", "Coffee packaging", "--download", "plain/sub"])
        assertFailure(notADirectory, status: 1, "plain/sub")
        XCTAssertEqual(notADirectory.stderr.split(separator: "\n").count, 1)
        // Permission bits do not stop root, which CI may be.
        guard getuid() != 0 else { return }
        let locked = process.runtimeDirectory + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        chmod(locked, 0o500)
        defer { chmod(locked, 0o700) }
        let unwritable = try process.run(["files", "Coffee packaging", "--download", "locked"])
        assertFailure(unwritable, status: 1, "locked: Permission denied")
        XCTAssertEqual(unwritable.stderr.split(separator: "\n").count, 1)
    }

    func testRemoveKeepsTheOthersByIDAndAsksFirst() throws {
        let process = tracker()
        let asked = try process.run(["files", "CMCA brand identity", "--remove", "attzYwaMmw8HBTgqK"])
        assertFailure(asked, status: 64, "pass --yes")
        XCTAssertEqual(images().count, 3)
        let removed = try process.run(["files", "CMCA brand identity", "--remove", "attzYwaMmw8HBTgqK", "--yes"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(removed.lines, ["attzYwaMmw8HBTgqK"])
        XCTAssertEqual(images().compactMap { $0["id"] as? String }, ["attm5HZ4mDsQkfxvz", "atteiDBfduCQopiu6"])
        let patch = fake.recordLog.last { $0.method == "PATCH" }
        XCTAssertEqual(
            patch?.body, #"{"fields":{"Project images":[{"id":"attm5HZ4mDsQkfxvz"},{"id":"atteiDBfduCQopiu6"}]}}"#)

        fake.attach(
            Self.bytes(10), filename: "twin.png", type: "image/png", toRecord: Self.cmca, field: "Project images")
        fake.attach(
            Self.bytes(11), filename: "twin.png", type: "image/png", toRecord: Self.cmca, field: "Project images")
        let ambiguous = try process.run(["files", "CMCA brand identity", "--remove", "twin.png", "--yes"])
        assertFailure(ambiguous, status: 64, "2 files are named \"twin.png\"")
        XCTAssertEqual(images().count, 4)
    }

    func testShowListsFilesWithTheirSizes() throws {
        let result = try tracker().run(["show", "CMCA brand identity"])
        XCTAssertTrue(
            result.stdout.contains("pexels-photo-2261165.jpeg?auto=compress&cs=tinysrgb&dpr=1&w=500 (22 KB)"),
            result.stdout)
    }
}

/// `clients`, and `--client` as a filter matched by record id.
final class ClientsTests: FakeAirtableTestCase {
    func testClientsListsOpenAndTotalProjectsSortedByName() throws {
        var options = FakeAirtable.Options()
        options.clientNames = ["Zephyr", "Acme", "Acme Robotics"]
        try startFake(options: options)
        let process = tracker()
        let result = try process.run(["clients"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = result.lines.map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(rows.prefix(5).map { $0[1] }, ["Acme", "Acme Robotics", "Client 4", "Client 5", "Client 6"])
        for row in rows { XCTAssertEqual(row.count, 4, row.description) }
        let json = try process.run(["clients", "--json"])
        let objects = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(
            Set(objects?.first?.keys.map { $0 } ?? []), ["id", "name", "about", "projects", "open", "total", "fields"])
        // Every project that names a client is counted under it, the open ones among them.
        let projects = fake.records
        for object in objects ?? [] {
            let id = object["id"] as? String ?? ""
            let linked = projects.filter {
                (($0["fields"] as? [String: Any])?["Client"] as? [String])?.contains(id) == true
            }
            XCTAssertEqual(object["total"] as? Int, linked.count)
            let open = linked.filter { ($0["fields"] as? [String: Any])?["Complete"] as? Bool != true }
            XCTAssertEqual(object["open"] as? Int, open.count)
        }
        let ndjson = try process.run(["clients", "--format", "ndjson"])
        XCTAssertEqual(ndjson.lines.count, objects?.count)
    }

    func testClientNamesComeAtTabAfterClientsListedThem() throws {
        var options = FakeAirtable.Options()
        options.clientNames = ["Acme", "Acme Robotics", "Blue Door"]
        try startFake(options: options)
        var process = tracker()
        try process.putOnPath()
        let script = try process.run(["completion", "bash"]).stdout
        XCTAssertEqual(try bashCompletions(["tracker", "list", "--client", "Ac"], script: script, process), [])
        XCTAssertEqual(try process.run(["clients"]).status, 0)
        let requests = fake.log.count
        XCTAssertEqual(
            try bashCompletions(["tracker", "list", "--client", "ac"], script: script, process),
            ["Acme", "Acme\\ Robotics"])
        XCTAssertEqual(
            try bashCompletions(["tracker", "attach", "--client", "Bl"], script: script, process), ["Blue\\ Door"])
        XCTAssertEqual(fake.log.count, requests, "no request at TAB")
    }

    func testListClientKeepsOnlyThatClientsProjectsMatchedByID() throws {
        var options = FakeAirtable.Options()
        // "Acme" is inside "Acme Robotics": a formula matching names would take both.
        options.clientNames = ["Acme", "Acme Robotics"]
        try startFake(options: options)
        let acme = fake.records(inTable: "Clients").first {
            ($0["fields"] as? [String: Any])?["Name"] as? String == "Acme"
        }
        let acmeID = acme?["id"] as? String ?? ""
        let expected = fake.records.filter {
            (($0["fields"] as? [String: Any])?["Client"] as? [String])?.contains(acmeID) == true
        }.compactMap { $0["id"] as? String }
        let process = tracker()
        for typed in ["Acme", "acme", acmeID] {
            let result = try process.run(["list", "--client", typed])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(Set(result.lines.map { String($0.prefix(17)) }), Set(expected), typed)
        }
        // Every command with list's filters has it: the calendar of Acme's open projects.
        let calendar = try process.run(["calendar", "--client", "Acme"])
        XCTAssertEqual(calendar.status, 0, calendar.stderr)
        let uids = calendar.stdout.components(separatedBy: "\r\n").filter { $0.hasPrefix("UID:") }.map {
            String($0.dropFirst(4).prefix(17))
        }
        XCTAssertFalse(uids.isEmpty, calendar.stdout + calendar.stderr)
        XCTAssertTrue(Set(uids).isSubset(of: Set(expected)), "\(uids) \(expected)")
        let unknown = try process.run(["list", "--client", "Acne"])
        assertFailure(unknown, status: 64, "unknown client \"Acne\"")
        XCTAssertTrue(unknown.stderr.contains("Did you mean \"Acme\""), unknown.stderr)
    }
}
