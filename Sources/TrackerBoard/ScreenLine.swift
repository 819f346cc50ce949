import TrackerOperations

/// One row of the screen as cells are laid out: pieces of text with their attributes, exactly `width` columns wide.
/// What the tests read (`plain`) and what the terminal gets (`rendered`) come from the same pieces.
package struct ScreenLine: Equatable {
    package struct Attributes: OptionSet, Hashable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        package static let bold = Attributes(rawValue: 1)
        package static let dim = Attributes(rawValue: 2)
        package static let reverse = Attributes(rawValue: 4)
        package static let red = Attributes(rawValue: 8)
        package static let green = Attributes(rawValue: 16)
        package static let yellow = Attributes(rawValue: 32)
    }

    package struct Piece: Equatable {
        package var text: String
        package var attributes: Attributes
    }

    private(set) var pieces: [Piece] = []
    /// Columns used so far.
    private(set) var used = 0
    package let width: Int
    /// Whether text is written as it is (UTF-8) or in ASCII only, `?` for what ASCII lacks.
    package let unicode: Bool

    package init(width: Int, unicode: Bool) {
        self.width = max(0, width)
        self.unicode = unicode
    }

    /// Adds `text` (already safe: no control characters), cut with an ellipsis to `columns` (the rest of the line when
    /// nil) and padded to it; wide characters count two columns.
    package mutating func add(_ text: String, _ attributes: Attributes = [], columns: Int? = nil) {
        let room = max(0, width - used)
        let limit = min(columns ?? room, room)
        guard limit > 0 else { return }
        let shown = unicode ? text : Self.ascii(text)
        let piece =
            columns == nil
            ? Self.cut(shown, limit, unicode: unicode) : TextCells.fit(shown, limit, ellipsis: unicode ? "…" : "~")
        pieces.append(Piece(text: piece, attributes: attributes))
        used += TextCells.width(piece)
    }

    /// Fills the rest of the line with spaces in `attributes` (a selected card's reverse video).
    package mutating func pad(_ attributes: Attributes = []) {
        guard used < width else { return }
        pieces.append(Piece(text: String(repeating: " ", count: width - used), attributes: attributes))
        used = width
    }

    /// The text a person reads.
    package var plain: String { pieces.map(\.text).joined() + String(repeating: " ", count: max(0, width - used)) }

    /// The bytes for the terminal: the attributes as SGR sequences (colours only with `colour`), reset after each.
    package func rendered(colour: Bool) -> String {
        var out = ""
        for piece in pieces {
            var codes: [String] = []
            if piece.attributes.contains(.bold) { codes.append("1") }
            if piece.attributes.contains(.dim) { codes.append("2") }
            if piece.attributes.contains(.reverse) { codes.append("7") }
            if colour {
                if piece.attributes.contains(.red) { codes.append("31") }
                if piece.attributes.contains(.green) { codes.append("32") }
                if piece.attributes.contains(.yellow) { codes.append("33") }
            }
            if codes.isEmpty {
                out += piece.text
            } else {
                out += "\u{1B}[" + codes.joined(separator: ";") + "m" + piece.text + "\u{1B}[0m"
            }
        }
        if used < width { out += String(repeating: " ", count: width - used) }
        return out
    }

    /// `text` cut to `limit` columns (ellipsis when cut), not padded.
    private static func cut(_ text: String, _ limit: Int, unicode: Bool) -> String {
        guard TextCells.width(text) > limit else { return text }
        return TextCells.withoutTrailingSpaces(TextCells.fit(text, limit, ellipsis: unicode ? "…" : "~"))
    }

    /// `text` in ASCII: what a non-UTF-8 terminal can show, `?` for the rest.
    package static func ascii(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.isASCII ? $0 : "?" }))
    }
}
