import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct TextSafetyTests {
    @Test(arguments: [
        ("Evil \u{1B}[2J\u{1B}]0;owned\u{07}", "Evil ^[[2J^[]0;owned^G"),
        ("bell\u{07}del\u{7F}cr\rnul\u{0}", "bell^Gdel^?cr^Mnul^@"),
        ("c1 \u{9B}31m", "c1 <U+009B>31m"),
        ("abc\u{202E}fed\u{2066}x\u{2069}", "abc<U+202E>fed<U+2066>x<U+2069>"),
        ("tab\tand\nnew\r\nline", "tab and new line"),
        ("plain ünïcödé 🚀", "plain ünïcödé 🚀"),
    ])
    func controlCharactersNeverReachTheTerminalRaw(raw: String, shown: String) {
        #expect(TextCells.folded(raw) == shown)
    }

    @Test func showKeepsTheNewlinesOfNotesAndCSVKeepsTabsToo() {
        let notes = "one\ttwo\r\nthree\u{1B}[31m\rfour"
        #expect(TextCells.safe(notes, breaks: .keepNewlines) == "one two\nthree^[[31m^Mfour")
        #expect(TextCells.safe(notes, breaks: .keepNewlinesAndTabs) == "one\ttwo\nthree^[[31m^Mfour")
    }

    @Test(arguments: [
        ("abc", 3), ("é", 1), ("e\u{301}", 1), ("日本", 4), ("한국어", 6), ("🚀", 2), ("👩‍💻", 2), ("👍🏽", 2),
        ("🇫🇷", 2), ("❤️", 2), ("❤", 1), ("1️⃣", 2), ("a\u{200B}b", 2), ("ｶﾀｶﾅ", 4), ("Ｗ", 2),
    ])
    func displayWidthCountsColumnsAsATerminalDoes(text: String, columns: Int) {
        #expect(TextCells.width(text) == columns)
    }

    @Test func fittingNeverSplitsAnEmojiSequence() {
        #expect(TextCells.fit("👩‍💻👩‍💻👩‍💻", 5) == "👩‍💻👩‍💻…")
        #expect(TextCells.fit("ab🚀", 3) == "ab…")
        #expect(TextCells.fit("🚀", 4) == "🚀  ")
    }
}
