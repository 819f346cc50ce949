#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerSystem

/// `tracker open`: a project's page on airtable.com, opened in the browser on a terminal, printed elsewhere.
struct Open: Command {
    static let spec = CommandSpec(
        name: "open", summary: "Open a project on airtable.com, or print its address.",
        usage: ["tracker open ID|NAME [--url]", "tracker open --task TASK [--project PROJECT] [--url]"],
        positional: "ID|NAME", arguments: .projects,
        flags: [FlagSpec(name: "--url", help: "print the address only, even on a terminal")] + RecordTarget.flags,
        examples: [
            "tracker open \"CMCA brand identity\"", "tracker open rec3g0Xxmw2rw3scs --url | pbcopy",
            "tracker open --task \"Print proofs\" --project \"Coffee packaging\"",
        ],
        notes: [
            "On a terminal the browser opens it too: $BROWSER when set, else xdg-open (open on macOS), started in",
            "the background with its output discarded. Piped, it only prints. The address needs the table's id from",
            "the schema: without schema.bases:read the base's address is printed instead. " + CommandSpec.namingNote,
        ])

    var target: RecordTarget
    /// `--url`: print only.
    var printsOnly = false

    func run(_ runner: Runner) async throws { try await runner.open(self) }
}

extension Open {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.recordTarget()
        try scanned.rejectPositionals(allowed: 1)
        self.init(target: target, printsOnly: scanned.has("--url"))
    }
}

extension Runner {
    /// Finds the project (one request, beside the schema read when nothing is remembered), prints its address and,
    /// on a terminal, hands it to the browser.
    fileprivate func open(_ options: Open) async throws {
        let base = try await prepareBase(readingBeside: true)
        let record = try await base.find(options.target, forgiving: true)
        let baseID = base.configuration.baseID
        guard let tableID = record.tableID else {
            try output.standardOutput(WebAddress.base(baseID) + "\n")
            output.standardError(
                "tracker: this is the base's address: the project's needs the table's id, and the token lacks "
                    + "schema.bases:read\n")
            return
        }
        let address = WebAddress.record(baseID: baseID, tableID: tableID, recordID: record.id)
        try output.standardOutput(address + "\n")
        guard output.isStdoutTerminal, !options.printsOnly else { return }
        if !context.openInBrowser(address) {
            output.standardError("tracker: no browser to open it with; set BROWSER, or install xdg-utils\n")
        }
    }
}
