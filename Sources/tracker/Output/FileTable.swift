import TrackerModel

/// The attachments on a terminal: name, size, type, dimensions and the address, fitted to the width.
enum FileTable {
    static func render(_ attachments: [Attachment], width: Int, style: Style) -> String {
        let rows = attachments.map { file in
            [
                TextCells.folded(file.filename), file.size.map(ByteCount.text) ?? "", TextCells.folded(file.type ?? ""),
                file.dimensions ?? "",
            ]
        }
        let widths = (0..<4).map { column in rows.map { TextCells.width($0[column]) }.max() ?? 0 }
        let nameWidth = min(widths[0], max(12, width / 3))
        var text = ""
        for (row, file) in zip(rows, attachments) {
            var line = TextCells.fit(row[0], nameWidth).padding(to: nameWidth) + "  "
            line += String(repeating: " ", count: widths[1] - TextCells.width(row[1])) + row[1] + "  "
            line += row[2].padding(to: widths[2]) + "  " + row[3].padding(to: widths[3])
            let room = width - TextCells.width(line) - 2
            if let url = file.url, room >= 12 { line += "  " + style.dim(TextCells.fit(TextCells.folded(url), room)) }
            text += line.trimmingTrailingSpaces() + "\n"
        }
        return text
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - TextCells.width(self)))
    }

    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
