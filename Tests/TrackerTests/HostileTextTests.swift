import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

/// Text anyone who can edit the base controls, fed through the error paths: stderr must show it, never obey it.
@Suite(.timeLimit(.minutes(2)))
struct HostileTextTests {
    /// The raw characters a terminal would act on.
    static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ControlCharacters.isControl($0) && $0 != "\n" && $0 != "\t" }
    }

    /// A name as JSON carries it: escapes for ESC, BEL, CSI (U+009B) and a right-to-left override.
    static let hostileJSON = #"Evil \u001b]0;owned\u0007 \u009b2J \u202eeman"#

    @Test func suggestionsAfterAnUnknownNameShowControlsAsCaretNotation() async {
        let result = await CLITests().run(
            ["update", "evi", "--due", "2026-12-24"],
            [.http(200, body: Fixture.page([])), .http(200, body: Fixture.page([Self.hostileJSON]))])
        #expect(result.code.rawValue == 66)
        #expect(Self.isInert(result.stderr), "stderr: \(result.stderr.debugDescription)")
        #expect(result.stderr.contains("Evil ^[]0;owned^G <U+009B>2J <U+202E>eman"))
    }

    @Test func anAmbiguityListShowsEachNameInert() async {
        let twins =
            #"{"records":[\#(Fixture.record(id: "recAAAAAAAAAAAAA1", name: "evil \\u001b[2J")),\#(Fixture.record(id: "recAAAAAAAAAAAAA2", name: "EVIL \\u001b[2J"))]}"#
        let result = await CLITests().run(["show", "Evil \u{1B}[2j"], [.http(200, body: twins)])
        #expect(result.code.rawValue == 64 || result.code.rawValue == 66)
        #expect(Self.isInert(result.stderr), "stderr: \(result.stderr.debugDescription)")
        #expect(result.stderr.contains("^["))
    }

    @Test func airtablesOwnMessageIsShownInert() async {
        let body =
            #"{"error":{"type":"INVALID_VALUE_FOR_COLUMN","message":"Field \"Due\u001b[31m\" \u009b bad \u0007"}}"#
        let result = await CLITests().run(["add", "--name", "X", "--due", "2026-12-01"], [.http(422, body: body)])
        #expect(result.code.rawValue == 65)
        #expect(Self.isInert(result.stderr), "stderr: \(result.stderr.debugDescription)")
        #expect(result.stderr.contains("Due^[[31m"))
    }

    @Test func theOneDoorToStderrKeepsLinesAndTabsAndMasksTheToken() {
        let written = Recorder()
        let output = Output(standardOutput: { _ in }, standardError: written.append)
        output.conceal(Fixture.token)
        output.standardError("a\tb\nc \u{1B}[2K\r\u{7F}\u{85} token \(Fixture.token)\n")
        #expect(written.text == "a\tb\nc ^[[2K^M^?<U+0085> token \(TokenMask.masked(Fixture.token))\n")
        // Shaped like a token but not yet known (a token pasted into another key): masked all the same.
        let pasted = "pat" + String(repeating: "Q", count: 14) + "." + String(repeating: "a", count: 63) + "9"
        output.standardError("baseId \(pasted)\n")
        #expect(written.text.hasSuffix("baseId pat…aaa9\n"))
    }

    @Test func theStatusLineKeepsItsOwnControlsButNotTheDatas() {
        let written = Recorder()
        let status = StatusLine(write: written.append)
        status.show("checking \"Evil \u{1B}]0;x\u{07}\"…")
        #expect(written.text == "\r\u{1B}[Kchecking \"Evil ^[]0;x^G\"…")
    }
}
