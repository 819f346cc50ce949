import FakeAirtable
import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

/// A small seeded generator, so a failing case can be reproduced from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite(.timeLimit(.minutes(2)))
struct GeneratedInputTests {
    static let words = [
        "list", "add", "show", "help", "lst", "--name", "--due", "--kickoff", "--category", "--lead", "--team",
        "--client",
        "--notes", "--notes-file", "--complete", "--if-absent", "--dry-run", "--json", "-q", "--quiet", "--format",
        "--secrets",
        "--timeout", "--verbose", "--color", "-h", "--help", "--version", "--", "-", "", " ", "=", "--name=",
        "--due=2026-12-01",
        "2026-12-01", "2026-02-30", "2024-02-29", "0000-00-00", "9999-12-31", "json", "csv", "tsv", "ndjson", "table",
        "xml",
        "always", "never", "auto", "0", "-1", "3600", "99999999999999999999", "a@b.co", "not-an-email",
        "rec3g0Xxmw2rw3scs",
        "x'), TRUE(), ('", "\"", "\\", "\n", "\t", "ünïcödé", "🙂", String(repeating: "x", count: 5000), "--=", "---",
        "-qh",
    ]

    @Test func thousandsOfArgumentVectorsParseOrFailAsUsage() {
        var random = SplitMix64(state: 20_261_121)
        for _ in 0..<5_000 {
            let count = Int.random(in: 0...8, using: &random)
            let arguments = (0..<count).map { _ in Self.words.randomElement(using: &random)! }
            switch Invocation.parse(arguments, today: CalendarDate("2026-11-21")!) {
            case .success: break
            case .failure(let error):
                #expect(error.exitCode == .usage, "\(arguments)")
                #expect(!error.message.isEmpty && !error.message.hasSuffix("\n"), "\(arguments)")
            }
        }
    }

    /// Bodies made by cutting, flipping and splicing a real page, plus JSON of the wrong shapes.
    static func bodies(count: Int, seed: UInt64) -> [Data] {
        var random = SplitMix64(state: seed)
        let real = FakeAirtable.recordedResponse
        let fragments = [
            "null", "true", "[]", "{}", "\"x\"", "1e999", "-0", "{\"records\":null}", "{\"records\":[{}]}",
            "{\"records\":[{\"id\":1}]}", "{\"records\":[{\"id\":\"r\",\"fields\":[]}]}",
            "{\"records\":[],\"offset\":7}",
            "{\"records\":[{\"id\":\"r\",\"fields\":{\"Project team\":{\"name\":1}}}]}", "\u{FEFF}{}", "<html>", "\0",
        ].map { Data($0.utf8) }
        return (0..<count).map { _ in
            var data = real
            switch Int.random(in: 0..<4, using: &random) {
            case 0: data = data.prefix(Int.random(in: 0..<data.count, using: &random))
            case 1:
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let index = Int.random(in: 0..<data.count, using: &random)
                    data[data.startIndex + index] = UInt8.random(in: 0...255, using: &random)
                }
            case 2:
                let index = Int.random(in: 0..<data.count, using: &random)
                data.insert(contentsOf: fragments.randomElement(using: &random)!, at: data.startIndex + index)
            default: data = fragments.randomElement(using: &random)!
            }
            return data
        }
    }

    @Test func thousandsOfMangledPagesDecodeOrFailCleanly() throws {
        for body in Self.bodies(count: 3000, seed: 7) {
            do {
                _ = try RecordDecoding.projects(body, map: .template)
            } catch {
                #expect(!error.message.isEmpty)
                #expect(error.exitCode == .unavailable)
            }
        }
    }

    @Test func mangledAnswersThroughTheClientAreErrorsNotCrashes() async throws {
        // What each status must end in, whatever the body: the status decides, a mangled body never hides it. A 429
        // whose body happens to name the monthly quota is 69; with no retry budget a 429 or 500 is not waited out.
        let expected: [Int: Set<ExitCode>] = [
            200: [.success, .unavailable], 401: [.permissionDenied], 404: [.notFound], 422: [.dataRejected],
            429: [.temporaryFailure, .unavailable], 500: [.unavailable],
        ]
        for (index, body) in Self.bodies(count: 1000, seed: 11).enumerated() {
            let status = [200, 200, 200, 401, 404, 422, 429, 500][index % 8]
            let host = StubTransport.host(
                [.http(status, body: String(decoding: body, as: UTF8.self))],
                fallback: .http(200, body: #"{"records":[]}"#))
            var outcome = ExitCode.success
            do {
                try await Fixture.client(host, budget: 0).listProjects(ListQuery()) { _ in }
            } catch let error as AppError {
                #expect(!error.message.isEmpty && !error.message.contains("\n"), "\(status): \(error.message)")
                outcome = error.exitCode
            }
            #expect(expected[status]!.contains(outcome), "HTTP \(status) ended in \(outcome) for \(body.count) bytes")
        }
    }
}
