/// Turns screens into what the terminal is sent: only the lines that changed since the last frame, each placed with
/// the cursor and written whole, the frame wrapped in synchronized output (no tearing where the terminal supports it,
/// ignored where it does not). One frame is one write.
package struct FrameWriter {
    private var previous: [String] = []
    package var colour: Bool

    package init(colour: Bool) { self.colour = colour }

    /// Forgets what is on the screen (after a resize, Ctrl-L or `fg`): the next frame is drawn whole.
    package mutating func invalidate() { previous = [] }

    /// The bytes that turn the last frame into `lines`; empty when nothing changed.
    package mutating func frame(_ lines: [ScreenLine]) -> String {
        let rendered = lines.map { $0.rendered(colour: colour) }
        var out = ""
        if previous.count != rendered.count {
            // A new size: everything goes, then every line is written.
            out += "\u{1B}[0m\u{1B}[2J"
            previous = []
        }
        for (row, text) in rendered.enumerated() where previous.indices.contains(row) == false || previous[row] != text
        {
            out += "\u{1B}[\(row + 1);1H" + text
        }
        previous = rendered
        guard !out.isEmpty else { return "" }
        return "\u{1B}[?2026h" + out + "\u{1B}[?2026l"
    }
}
