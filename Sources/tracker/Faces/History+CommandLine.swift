#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension History: Command {
    /// On a terminal an aligned table with local times; piped, one entry a line, tab-separated (id, time in UTC, who,
    /// face, command, records, status); `--json`, one array.
    func run(_ runner: Runner) async throws {
        let entries = try await runner.perform(self, in: runner.setup)
        if json {
            return try runner.output.standardOutput(JSONValue.array(entries.map(\.listed)).serialized() + "\n")
        }
        guard runner.output.isStdoutTerminal else {
            return try runner.output.standardOutput(
                entries.map { entry in
                    [
                        entry.id, ISOInstant.text(Date(timeIntervalSince1970: entry.at)), entry.user ?? "",
                        entry.face, entry.command, String(entry.recordCount), entry.standing,
                    ].map(TextCells.folded).joined(separator: "\t") + "\n"
                }.joined())
        }
        guard !entries.isEmpty else { return runner.output.standardError("Nothing written yet.\n") }
        let zone = runner.context.timeZone
        let rows = entries.map { entry -> [String] in
            let (date, seconds) = zone.local(Date(timeIntervalSince1970: entry.at))
            let hours = seconds / 3600
            let minutes = seconds / 60 % 60
            let time = "\(date) \(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes)"
            let undoes = entry.undoes.map { " (undoes \($0))" } ?? ""
            let status: String = entry.standing + undoes
            let cells: [String] = [
                entry.id, time, entry.user ?? "-", TextCells.folded(entry.what), String(entry.recordCount), status,
            ]
            return cells
        }
        let head = ["ID", "WHEN", "WHO", "WHAT", "RECORDS", "STATUS"]
        let widths = head.indices.map { column in ([head] + rows).map { TextCells.width($0[column]) }.max() ?? 0 }
        // Fitted to the terminal: the last column (the status) is cut first.
        let columns = runner.output.terminalWidth ?? 80
        func line(_ cells: [String]) -> String {
            let text = TextCells.withoutTrailingSpaces(
                zip(cells, widths).map { TextCells.fit($0, $1) }.joined(separator: "  "))
            return TextCells.width(text) > columns ? TextCells.fit(text, columns) : text
        }
        try runner.output.standardOutput(
            runner.style.bold(line(head)) + "\n" + rows.map { line($0) + "\n" }.joined())
    }
}
