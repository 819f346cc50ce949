import Foundation
import Testing

@_spi(Writing) @testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct FileNameTests {
    @Test(arguments: [
        ("mockup.png", "mockup.png"),
        ("../../etc/passwd", "_._.._etc_passwd"),
        ("a/b.png", "a_b.png"),
        ("a\\b.png", "a_b.png"),
        (".bashrc", "_bashrc"),
        ("-rf", "_rf"),
        ("--", "_-"),
        ("", "attachment-000001"),
        ("..", "attachment-000001"),
        (".", "attachment-000001"),
        ("  ", "attachment-000001"),
        ("bell\u{07}\u{1B}]0;x.png", "bell__]0;x.png"),
        ("bidi\u{202E}gnp.exe", "bidi_gnp.exe"),
        ("nul\u{0}.png", "nul_.png"),
        ("résumé 2026.pdf", "résumé 2026.pdf"),
        ("photo.jpeg?auto=compress&w=500", "photo.jpeg?auto=compress&w=500"),
    ])
    func namesFromAirtableBecomePlainFileNames(name: String, safe: String) {
        #expect(FileNames.safe(name, id: "att00000000000001") == safe)
    }

    @Test func aLongNameIsShortenedToTwoHundredBytesKeepingItsExtension() {
        let name = String(repeating: "é", count: 300) + ".png"
        let safe = FileNames.safe(name, id: "attX")
        #expect(safe.utf8.count <= 200)
        #expect(safe.hasSuffix("é.png"))
    }

    @Test func twoAttachmentsOfOneNameGetNumbersBeforeTheExtension() {
        let files = ["same.png", "same.png", "same.png", "same (2).png", "", "other"].enumerated().map {
            Attachment(id: "att\($0.offset)", filename: $0.element)
        }
        #expect(
            DownloadPlan.names(for: files).map(\.name) == [
                "same.png", "same (2).png", "same (3).png", "same (2) (2).png", "attachment-att4", "other",
            ])
    }

    @Test(arguments: [
        ("a.PNG", "image/png"), ("b.jpeg", "image/jpeg"), ("c.pdf", "application/pdf"), ("d.svg", "image/svg+xml"),
        ("e.txt", "text/plain"), ("f", "application/octet-stream"), ("g.unknown", "application/octet-stream"),
    ])
    func theContentTypeComesFromTheExtension(name: String, type: String) {
        #expect(ContentType.of(name) == type)
    }

    @Test func sizesReadAsPeopleReadThem() {
        #expect(ByteCount.text(512) == "512 B")
        #expect(ByteCount.text(22616) == "22 KB")
        #expect(ByteCount.text(1_258_291) == "1.2 MB")
        #expect(ByteCount.text(5 * 1024 * 1024) == "5 MB")
    }
}

@Suite(.timeLimit(.minutes(2)))
struct UploadBodyTests {
    @Test(arguments: [0, 1, 2, 3, 4, 5, 196_607, 196_608, 196_609, 400_000])
    func theBodyIsBase64JSONOfTheFileWrittenInPieces(count: Int) throws {
        let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)").path
        try bytes.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = UploadFile(path: path, filename: "a \"b\".png", size: count, contentType: "image/png")
        let body = try ProjectAPIClient.uploadBody(file)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: String])
        #expect(object["contentType"] == "image/png")
        #expect(object["filename"] == "a \"b\".png")
        #expect(object["file"] == bytes.base64EncodedString())
    }

    @Test func theAnswersNewAttachmentIsFoundByTheFieldsID() throws {
        let answer = #"""
            {"id":"rec1","createdTime":"2026-01-01T00:00:00.000Z","fields":{"fldIMAGES":[
            {"id":"attOLD","filename":"x.png","size":3},{"id":"attNEW","filename":"x.png","size":3}]}}
            """#
        let cell = AttachmentCell(table: "tbl", recordID: "rec1", field: "Project images", fieldID: "fldIMAGES")
        let file = UploadFile(path: "/x.png", filename: "x.png", size: 3, contentType: "image/png")
        let added = try ProjectAPIClient.uploaded(Data(answer.utf8), cell: cell, file: file, known: ["attOLD"])
        #expect(added.id == "attNEW")
    }
}

@Suite(.timeLimit(.minutes(2)))
struct AttachmentFieldChoiceTests {
    static func table(_ fields: [(String, String)]) -> BaseSchema.Table {
        BaseSchema.Table(
            id: "tblP", name: "Design projects", primaryFieldID: "fld0",
            fields: [BaseSchema.Field(id: "fld0", name: "Name", type: "singleLineText")]
                + fields.enumerated().map {
                    BaseSchema.Field(id: "fld\($0.offset + 1)", name: $0.element.0, type: $0.element.1)
                },
            views: [])
    }

    static let two = table([
        ("Project images", "multipleAttachments"), ("Contracts", "multipleAttachments"), ("Notes", "multilineText"),
    ])
    static let renamed = table([("Mock-ups", "multipleAttachments"), ("Contracts", "multipleAttachments")])

    func pick(_ flag: String?, _ mapped: FieldSettings.Setting?, _ table: BaseSchema.Table?) throws -> String {
        try AttachmentFieldChoice.pick(
            flag: flag, mapped: mapped, template: "Project images", table: table, tableName: "Design projects",
            command: "files"
        ).name
    }

    @Test func theTemplatesFieldThenTheMappedOneThenTheFlag() throws {
        #expect(try pick(nil, nil, Self.two) == "Project images")
        #expect(try pick("contracts", nil, Self.two) == "Contracts")
        #expect(try pick(nil, .named("Mock-ups"), Self.renamed) == "Mock-ups")
        #expect(try pick(nil, nil, Self.table([("Files", "multipleAttachments")])) == "Files")
        #expect(try pick(nil, nil, nil) == "Project images")
        #expect(try pick("Anything", nil, nil) == "Anything")
    }

    @Test func severalAndNoneChosenIsUsageListingThem() {
        #expect(
            throws: AppError.usage(
                "\"Design projects\" has 2 attachment fields (\"Mock-ups\", \"Contracts\"); pick one with --field NAME",
                command: "files")
        ) { try pick(nil, nil, Self.renamed) }
        #expect(throws: AppError.usage("\"Design projects\" has no attachment field", command: "files")) {
            try pick(nil, nil, Self.table([]))
        }
        #expect(
            throws: AppError.usage(
                "\"Notes\" is a multilineText field, not an attachment field; the attachment fields: \"Project images\", \"Contracts\"",
                command: "files")
        ) { try pick("Notes", nil, Self.two) }
        #expect(throws: (any Error).self) { try pick(nil, .absent, Self.two) }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct DownloadRequestTests {
    @Test func aDownloadCarriesNoTokenAndAnExpiredAddressIsNotRetried() async throws {
        let host = StubTransport.host([.http(410, body: "expired"), .http(200, body: "bytes!")])
        let client = Fixture.client(host)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dl-\(UUID().uuidString)").path
        let descriptor = POSIX.open(path, O_RDWR | O_CREAT, 0o600)
        defer {
            close(descriptor)
            unlink(path)
        }
        let url = URL(string: "https://\(host.name)/v5/att1/sig/file.png")!
        let expired = await client.download(url, into: descriptor) { _ in }
        #expect(expired.failureValue == AppError.http(status: 410, ServiceError(type: nil, message: nil)))
        let done = await client.download(url, into: descriptor) { _ in }
        #expect(done.failureValue == nil)
        #expect(FileManager.default.contents(atPath: path) == Data("bytes!".utf8))
        #expect(host.requests.count == 2)
        #expect(host.requests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil })
    }

    @Test func aLostUploadIsLookedForOnTheRecordAndNeverSentAgain() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("up-\(UUID().uuidString)").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let listing =
            #"{"records":[{"id":"rec1","createdTime":"2026-01-01T00:00:00.000Z","fields":{"Project images":[{"id":"attOLD","filename":"a.txt","size":5},{"id":"attNEW","filename":"a.txt","size":5}]}}]}"#
        let host = StubTransport.host([.failure(.broken("connection reset")), .http(200, body: listing)])
        let client = Fixture.client(host)
        let cell = AttachmentCell(table: "Design projects", recordID: "rec1", field: "Project images", fieldID: nil)
        let file = UploadFile(path: path, filename: "a.txt", size: 5, contentType: "text/plain")
        let found = try await client.uploadOnce(file, to: cell, known: ["attOLD"]).get()
        #expect(found.id == "attNEW")
        #expect(host.requests.filter { $0.method == "POST" }.count == 1)
        #expect(host.requests.first?.value(forHTTPHeaderField: "Authorization")?.hasPrefix("Bearer ") == true)
    }
}

extension Result {
    /// The error, when this is a failure.
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

@Suite(.timeLimit(.minutes(2)))
struct DownloadAddressTests {
    @Test(arguments: [
        ("https://v5.airtableusercontent.com/v3/u/1/2/a.png", true),
        ("http://127.0.0.2:8080/v5/att/a.png", true),
        ("http://localhost/a.png", true),
        ("http://v5.airtableusercontent.com/a.png", false),
        ("http://169.254.169.254/latest/meta-data", false),
        ("file:///etc/passwd", false),
        ("ftp://example.com/a.png", false),
    ])
    func onlyHTTPSOrThisMachinesPlainHTTPIsFetched(address: String, fetched: Bool) {
        #expect(Session.isSafeDownload(URL(string: address)!) == fetched)
    }
}

@Suite(.timeLimit(.minutes(2)))
struct FileAndClientTableTests {
    @Test func filesLineUpSizesToTheRightAndFitTheWidth() {
        let files = [
            Attachment(
                id: "att1", filename: "a.png", size: 512, type: "image/png",
                url: "https://x/" + String(repeating: "a", count: 200), width: 96, height: 64),
            Attachment(id: "att2", filename: "brief\u{1B}[2J.pdf", size: 1_258_291, type: "application/pdf"),
        ]
        let lines = FileTable.render(files, width: 60, style: Style(isEnabled: false)).split(separator: "\n").map(
            String.init)
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { TextCells.width($0) <= 60 && !$0.hasSuffix(" ") })
        #expect(lines[0].hasPrefix("a.png            512 B  image/png        96×64  https://x/"))
        #expect(lines[1] == "brief^[[2J.pdf  1.2 MB  application/pdf")
    }

    @Test func clientsShowTheirOpenProjectsAsFarAsTheyFit() {
        func project(_ id: String, _ name: String, complete: Bool) -> Project {
            Project(
                id: id, createdTime: "", name: name, category: nil, isComplete: complete, kickoff: nil, due: nil,
                lead: nil, team: [], clients: ["recA"], notes: nil, otherFields: [])
        }
        let acme = ClientSummary(
            id: "recA", name: "Acme", about: nil,
            projects: [project("rec1", "Logo", complete: false), project("rec2", "Site", complete: true)],
            fields: .object([]))
        let text = ClientTable.render([acme], width: 40, style: Style(isEnabled: false))
        #expect(text == "CLIENT  OPEN  TOTAL  OPEN PROJECTS\nAcme       1      2  Logo\n")
    }
}
