import TrackerAPI
import TrackerModel

/// `tracker report`: what is overdue, due soon, done and new, as text, markdown, HTML, JSON or a whole mail.
package struct Report: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "report", facts: [.readsTeamCopy],
        summary: "Summarise what is overdue, due soon, done and new, for a mail.",
        usage: [
            "tracker report [--days N] [--by lead|category] [--always]",
            "               [--format text|markdown|html|json|email] [--to ADDRESS]... [--from ADDRESS]",
            "               [--complete | --incomplete] [--category NAME] [--lead NAME|EMAIL]",
            "               [--search TEXT] [--view NAME]",
        ],
        flags: CommandSpec.filterFlags.filter { !["--overdue", "--due-before", "--due-within"].contains($0.name) } + [
            FlagSpec(
                name: "--days", value: "N", minimum: 1,
                help: "done and new in the last N days, due soon within N (\(DueWithin.words("N"))); default 7"),
            FlagSpec(
                name: "--by", value: "GROUP", choices: ProjectDigest.Grouping.allCases.map(\.rawValue),
                help: "group each section's projects by lead or category (default none)"),
            FlagSpec(
                name: "--format", value: "FORMAT", choices: Format.allCases.map(\.rawValue),
                help: "text (default), markdown, html, json, or email (a message for sendmail -t)"),
            FlagSpec(name: "--json", help: "the same as --format json"),
            FlagSpec(
                name: "--to", value: "ADDRESS", repeatable: true, help: "a recipient of --format email (repeatable)"),
            FlagSpec(name: "--from", value: "ADDRESS", help: "the sender of --format email (default $EMAIL)"),
            FlagSpec(name: "--always", help: "with nothing to report, print one line instead of nothing"),
        ],
        examples: [
            "tracker report", "tracker report --days 14 --by lead --format markdown",
            "tracker report --format email --to team@example.com > report.eml",
        ],
        notes: [
            "Overdue, due in the next N days (today included), done in the last N days (completed then: the",
            "completion field last changed then) and new (created then); a project is in every section it fits.",
            "One listing, filtered on Airtable. Nothing to report prints nothing, so cron mails nothing.",
            "--format email writes a whole message (text and HTML) for sendmail -t: --to is required, and the",
            "sender is --from, else $EMAIL, else your login at this host. From cron, send the file only when it is",
            "not empty: [ -s report.eml ] && /usr/sbin/sendmail -t < report.eml",
        ])

    package enum Format: String, CaseIterable, Sendable {
        case text, markdown, html, json, email
    }

    package var filters = ProjectFilters()
    package var view: String? = nil
    package var days = 7
    package var grouping = ProjectDigest.Grouping.none
    package var format = Format.text
    package var recipients: [String] = []
    package var sender: String? = nil
    package var always = false

    package var opening: SessionOpening { .besideSchema }
}

extension Report {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(filters: try scanned.projectFilters(today: today), view: try scanned.view())
        days =
            try scanned.wholeNumber("--days").map { days in
                guard days <= 366 else {
                    throw AppError.usage(
                        "--days must be a whole number from 1 to 366, not '\(days)'", command: "report")
                }
                return days
            } ?? 7
        grouping = scanned.last("--by").flatMap(ProjectDigest.Grouping.init(rawValue:)) ?? .none
        format = try scanned.formatName().flatMap(Format.init(rawValue:)) ?? .text
        always = scanned.has("--always")
        let typed = scanned.all("--to") + (scanned.last("--from").map { [$0] } ?? [])
        if format != .email, let first = ["--to", "--from"].first(where: scanned.has) {
            throw AppError.usage("\(first) is for --format email", command: "report")
        }
        for address in typed where MailMessage.mailbox(address) == nil {
            throw AppError.usage(
                "'\(TextCells.folded(address))' is not one mail address (like lead@example.com or "
                    + "\"Lead Name <lead@example.com>\")", command: "report")
        }
        recipients = scanned.all("--to").compactMap(MailMessage.mailbox)
        sender = scanned.last("--from").flatMap(MailMessage.mailbox)
        if format == .email && recipients.isEmpty {
            throw AppError.usage("--format email needs --to ADDRESS, the recipient", command: "report")
        }
    }
}

extension Report {
    /// Reads the projects of every section in one listing and sorts them into the digest; nil when there is
    /// nothing to report and `--always` was not given.
    package func run(in session: Session) async throws -> ReportDocument? {
        let options = self
        let today = session.today
        var digest = ProjectDigest(date: today, days: options.days, timeZone: session.surroundings.timeZone)
        let fields = session.layout.fields
        // No record says when it was completed: a reader that applies the predicate is told which projects turned
        // complete lately; Airtable applies the formula (`nil`), and a view is Airtable's to apply.
        let lately =
            options.view == nil
            ? try await session.reader.completedLately(
                since: digest.since, formula: Formula.completedSince(digest.since, fields: fields)) : nil
        let picked = Formula.digestSelection(
            today: today, days: options.days, since: digest.since, fields: fields, completedLately: lately ?? [])
        let listing = try await session.projectListing(
            options.filters, view: options.view, command: "report", also: picked,
            showing: options.format == .json ? nil : [.name, .due, .complete, .lead, .category])
        // The open tasks, read in one listing beside the projects'; those of overdue projects make their section.
        let openTasks = Self.openTasksRead(session)
        defer { openTasks?.cancel() }
        let layout = try await listing.read(session.reader) { page in
            for project in page { digest.add(project) }
        }
        digest.sort()
        guard !digest.isEmpty || options.always else { return nil }
        var tasks: TaskRows?
        if let openTasks {
            var overdue: [String: Project] = [:]
            digest[.overdue].forEach { overdue[$0.id] = $0 }
            let found = try await openTasks.value.filter { $0.project.map { overdue[$0] != nil } ?? false }
            tasks = TaskRows(found, projects: overdue, today: today)
        }
        let baseID = session.configuration.baseID
        let document = ReportDocument(
            digest: digest, tableName: layout.table?.name ?? session.configuration.table,
            grouping: options.grouping, tasks: tasks,
            address: layout.table.map { table in
                let tableID = table.id
                return { WebAddress.record(baseID: baseID, tableID: tableID, recordID: $0) }
            })
        return document
    }

    /// Every open task, in one listing of the Tasks table; nil when the base has none.
    private static func openTasksRead(_ session: Session) -> Task<[ProjectTask], Error>? {
        guard let layout = session.layout.tasks else { return nil }
        let reader = session.reader
        let open = Formula.taskSelection(TaskFilters(state: .open), fields: layout.fields)
        return Task {
            var found: [ProjectTask] = []
            try await reader.listTasks(in: layout.client, .picking(open)) { found += $0 }
            return found
        }
    }
}
