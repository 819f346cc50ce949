#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker report`: what is overdue, due soon, done and new, as text, markdown, HTML, JSON or a whole mail.
struct Report: Command {
    static let spec = CommandSpec(
        name: "report", summary: "Summarise what is overdue, due soon, done and new, for a mail.",
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

    enum Format: String, CaseIterable, Sendable {
        case text, markdown, html, json, email
    }

    var filters = ProjectFilters()
    var view: String? = nil
    var days = 7
    var grouping = ProjectDigest.Grouping.none
    var format = Format.text
    var recipients: [String] = []
    var sender: String? = nil
    var always = false

    func run(_ runner: Runner) async throws { try await runner.report(self) }
}

extension Report {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
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

extension Runner {
    /// Reads the projects of every section in one listing, sorts them into the digest, and writes it at once.
    fileprivate func report(_ options: Report) async throws {
        let base = try await prepareBase(readingBeside: true)
        var digest = ProjectDigest(date: today, days: options.days, timeZone: context.timeZone)
        let fields = base.layout.fields
        var terms = [Formula.digest(today: today, days: options.days, since: digest.since, fields: fields)]
        var picked: Selection<Project>?
        // A face's copy knows every field but when a project was completed: that it asks Airtable (once a day).
        if let copy = base.client.copy, options.view == nil {
            var lately = Set<String>()
            if let formula = Formula.completedSince(digest.since, fields: fields) {
                lately = try await copy.completedIDs(since: digest.since, formula: formula)
            }
            picked = Formula.digestSelection(
                today: today, days: options.days, since: digest.since, fields: fields, completedLately: lately)
            terms = []
        }
        let listing = try await base.projectListing(
            options.filters, view: options.view, command: "report", terms: terms, also: picked,
            showing: options.format == .json ? nil : [.name, .due, .complete, .lead, .category])
        // The open tasks, read in one listing beside the projects'; those of overdue projects make their section.
        let openTasks = openTasksRead(base)
        defer { openTasks?.cancel() }
        let layout = try await listing.read(base.client) { page in
            for project in page { digest.add(project) }
        }
        digest.sort()
        guard !digest.isEmpty || options.always else { return }
        var tasks: TaskRows?
        if let openTasks {
            var overdue: [String: Project] = [:]
            digest[.overdue].forEach { overdue[$0.id] = $0 }
            let found = try await openTasks.value.filter { $0.project.map { overdue[$0] != nil } ?? false }
            tasks = TaskRows(found, projects: overdue, today: today)
        }
        let baseID = base.configuration.baseID
        let document = ReportDocument(
            digest: digest, tableName: layout.table?.name ?? base.configuration.table,
            grouping: options.grouping, tasks: tasks,
            address: layout.table.map { table in
                let tableID = table.id
                return { WebAddress.record(baseID: baseID, tableID: tableID, recordID: $0) }
            })
        switch options.format {
        case .text: try output.standardOutput(digest.isEmpty ? document.nothingLine + "\n" : document.text())
        case .markdown: try output.standardOutput(document.markdown())
        case .html: try output.standardOutput(document.html())
        case .json: try output.standardOutput(document.json(today: today))
        case .email: try output.standardOutput(mail(document, options).rendered())
        }
    }

    /// Every open task, in one listing of the Tasks table; nil when the base has none.
    private func openTasksRead(_ base: Session) -> Task<[ProjectTask], Error>? {
        guard let layout = base.layout.tasks else { return nil }
        let client = base.client
        let open = Formula.taskSelection(TaskFilters(state: .open), fields: layout.fields)
        return Task {
            var found: [ProjectTask] = []
            try await client.listTasks(in: layout.client, .picking(open)) { found += $0 }
            return found
        }
    }

    private func mail(_ document: ReportDocument, _ options: Report) -> MailMessage {
        let environment = context.environment
        let host = Self.hostName()
        let login = [environment["LOGNAME"], environment["USER"]].compactMap { $0 }.first { !$0.isEmpty } ?? "tracker"
        let sender =
            options.sender ?? environment["EMAIL"].flatMap(MailMessage.mailbox)
            ?? MailMessage.mailbox("\(login)@\(host)") ?? "tracker@localhost.localdomain"
        let now = context.now()
        let unique = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let summary = document.digest.isEmpty ? document.nothingLine : document.counts
        return MailMessage(
            from: sender, to: options.recipients, subject: "\(TextCells.folded(document.tableName)): \(summary)",
            date: MailMessage.date(now, in: context.timeZone),
            messageID: "<tracker.\(Int(now.timeIntervalSince1970)).\(unique)@\(host)>",
            text: document.digest.isEmpty ? document.nothingLine + "\n" : document.text(), html: document.html(),
            boundary: "=_tracker_\(unique)")
    }

    /// This machine's name as a mail domain: letters, digits, dots and hyphens, with a dot (or `.localdomain`).
    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let name =
            gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let cleaned = String(
            name.unicodeScalars.filter {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-")
            })
        if cleaned.isEmpty { return "localhost.localdomain" }
        return cleaned.contains(".") ? cleaned : cleaned + ".localdomain"
    }
}
