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

    /// Text measured and cut by scalar (every scalar one column and a character of its own) comes out as the grapheme
    /// rules would have it, and text with anything else still goes by the rules (broken by a range that takes in a
    /// combining mark, a soft hyphen, a wide or an emoji scalar).
    @Test func theScalarPathMeasuresAndCutsAsTheGraphemeRulesDo() {
        func byCharacters(_ text: String, _ limit: Int) -> String {
            let total = text.reduce(0) { $0 + TextCells.width($1) }
            if total <= limit { return text + String(repeating: " ", count: limit - total) }
            var (out, used) = ("", 0)
            for character in text {
                let width = TextCells.width(character)
                if used + width > limit - 1 { break }
                out.append(character)
                used += width
            }
            return out + "…" + String(repeating: " ", count: max(0, limit - 1 - used))
        }
        let simple = Array("aZ ~éßÿĀžƒǅȳʼˈ΅ΑωϿЀѐҀ‐—‘”†•…‧·¡¬®") + ["\u{A0}"]
        let others: [Character] = ["\u{AD}", "e\u{301}", "\u{483}", "日", "🚀", "©️", "‼", "\u{2028}", "\u{7F}", "한"]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<400 {
            let length = Int.random(in: 0...12, using: &generator)
            var text = String((0..<length).map { _ in simple.randomElement(using: &generator)! })
            if round % 2 == 1 { text.insert(others.randomElement(using: &generator)!, at: text.startIndex) }
            #expect(TextCells.isOneColumnEach(text) == (round % 2 == 0), "\(text.unicodeScalars.map(\.value))")
            #expect(TextCells.width(text) == text.reduce(0) { $0 + TextCells.width($1) }, "\(text)")
            for limit in 1...8 {
                #expect(TextCells.fit(text, limit) == byCharacters(text, limit), "\(text) in \(limit)")
            }
        }
    }
}
