import TrackerOperations

/// The clients on a terminal: name, open and total projects, and the open projects' names as far as they fit.
enum ClientTable {
    static func render(_ clients: [ClientSummary], width: Int, style: Style) -> String {
        let names = clients.map { TextCells.folded($0.name.isEmpty ? "(no name)" : $0.name) }
        let nameWidth = min(max(6, names.map(TextCells.width).max() ?? 0), max(12, width / 3))
        let head = TextCells.fit("CLIENT", nameWidth) + "  OPEN  TOTAL  OPEN PROJECTS"
        var text = style.bold(head) + "\n"
        for (client, name) in zip(clients, names) {
            var line = TextCells.fit(name, nameWidth) + "  " + TextCells.rightAligned(String(client.open.count), 4)
            line += "  " + TextCells.rightAligned(String(client.projects.count), 5)
            let room = width - TextCells.width(line) - 2
            let open = client.open.compactMap(\.name).map(TextCells.folded).joined(separator: ", ")
            if !open.isEmpty && room >= 8 { line += "  " + TextCells.fit(open, room) }
            text += TextCells.withoutTrailingSpaces(line) + "\n"
        }
        return text
    }
}
