import TrackerModel
import TrackerOperations

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
            var line = TextCells.fit(row[0], nameWidth) + "  " + TextCells.rightAligned(row[1], widths[1]) + "  "
            line += TextCells.fit(row[2], widths[2]) + "  " + TextCells.fit(row[3], widths[3])
            let room = width - TextCells.width(line) - 2
            if let url = file.url, room >= 12 { line += "  " + style.dim(TextCells.fit(TextCells.folded(url), room)) }
            text += TextCells.withoutTrailingSpaces(line) + "\n"
        }
        return text
    }
}
