/// "Did you mean" for mistyped words: the closest candidate within a small edit distance.
public enum Suggestion {
    /// The candidate nearest to `word`, if one is near enough to be a plausible typo.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, word.count / 3) ? best.0 : nil
    }

    /// `Did you mean "a" or "b"?`, nil when there is nothing to suggest; `quote` is `'` for words of the command line.
    public static func question(_ names: [String], quote: String = "\"") -> String? {
        guard !names.isEmpty else { return nil }
        return "Did you mean " + names.map { quote + $0 + quote }.joined(separator: " or ") + "?"
    }

    /// ` Did you mean "x"?` for the candidate closest to `word`, to end a message; empty when none is close.
    public static func ending(for word: String, in candidates: [String], quote: String = "\"") -> String {
        question(closest(to: word, in: candidates).map { [$0] } ?? [], quote: quote).map { " " + $0 } ?? ""
    }

    /// Levenshtein distance between two strings.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where j <= b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
