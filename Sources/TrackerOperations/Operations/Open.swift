import TrackerAPI
import TrackerModel

/// `tracker open`: a project's page on airtable.com, opened in the browser on a terminal, printed elsewhere.
package struct Open: Operation, Equatable {
    package static let spec = CommandSpec(
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

    package var target: RecordTarget
    /// `--url`: print only.
    package var printsOnly = false

    /// Each value given.
    package init(target: RecordTarget, printsOnly: Bool = false) {
        self.target = target
        self.printsOnly = printsOnly
    }

    package var opening: SessionOpening { .besideSchema }

    /// Finds the record (one request, beside the schema read when nothing is remembered) and makes its address.
    package func run(in session: Session) async throws -> WebPage {
        let record = try await session.find(target, forgiving: true)
        let baseID = session.configuration.baseID
        guard let tableID = record.tableID else { return WebPage(address: WebAddress.base(baseID), isTheBase: true) }
        return WebPage(
            address: WebAddress.record(baseID: baseID, tableID: tableID, recordID: record.id), isTheBase: false)
    }
}

extension Open {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.recordTarget()
        try scanned.rejectPositionals(allowed: 1)
        self.init(target: target, printsOnly: scanned.has("--url"))
    }
}

/// A record's page on airtable.com, or the base's when the token may not read the table's id.
package struct WebPage: Equatable, Sendable {
    package var address: String
    /// Whether this is the base's address, not the record's.
    package var isTheBase: Bool
}
