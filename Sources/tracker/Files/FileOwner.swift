import TrackerAPI
import TrackerModel
import TrackerOperations

/// Whose files `attach` and `files` handle: a project, by id or name, or a client's logo (`--client NAME|ID`).
enum FileOwner: Equatable, Sendable {
    case project(String)
    case client(String)

    /// `--client` for a client's files.
    static let flags = [
        FlagSpec(name: "--client", value: "NAME|ID", help: "a client's files (its Logo) in place of a project's"),
        FlagSpec(name: "--field", value: "NAME", help: "the attachment field to use (default: Project images, Logo)"),
    ]
}

/// The record found and the cell holding its files.
struct FileHolder: Sendable {
    var name: String
    var cell: AttachmentCell
    /// The cell as the lookup read it (a project named by name is read whole), so it need not be read again.
    var attachments: [Attachment]? = nil

    /// The attachments now: as the lookup read them, else read.
    func current(_ client: ProjectAPIClient) async throws -> [Attachment] {
        if let attachments { return attachments }
        return try await client.attachments(in: cell).get()
    }
}

extension ScannedArguments {
    /// The owner (`--client`, else the first word) and the words after it.
    func fileOwner() throws -> (owner: FileOwner, rest: [String]) {
        let name = command?.name ?? ""
        if let client = try nonEmpty("--client") {
            try TextRules.refuseControlCharacters(client, flag: "--client", command: name)
            return (.client(client), positionals)
        }
        return (.project(try projectTarget()), Array(positionals.dropFirst()))
    }
}

extension Runner {
    /// Finds the owner's record and picks its attachment field; `forgiving` for reading commands.
    func fileHolder(_ owner: FileOwner, field flag: String?, base: Session, command: String, forgiving: Bool)
        async throws -> FileHolder
    {
        switch owner {
        case .project(let typed):
            // By id the cell's own read finds the record (in this table only): no lookup first, one round trip less.
            let found =
                ProjectAPIClient.looksLikeRecordID(typed)
                ? FoundRecord(id: typed, route: nil, tableID: nil, name: typed)
                : try await find(.project(typed), base: base, forgiving: forgiving)
            let layout = try await base.confirmedLayout()
            let field = try AttachmentFieldChoice.pick(
                flag: flag, mapped: base.client.access.images, template: "Project images", table: layout.table,
                tableName: base.client.access.table, command: command)
            // Airtable leaves an empty cell out of a record read whole.
            let read = found.project.map { project in
                Attachment.list(project.otherFields.first { $0.name == field.name }?.value)
            }
            return FileHolder(
                name: found.name,
                cell: AttachmentCell(
                    table: layout.table?.id ?? base.client.access.table, recordID: found.id, field: field.name,
                    fieldID: field.id), attachments: read)
        case .client(let typed):
            let client = try await client(named: typed, base: base, command: command)
            let table = try await base.confirmedLayout().schema?.table(client.table)
            let field = try AttachmentFieldChoice.pick(
                flag: flag, mapped: nil, template: "Logo", table: table, tableName: table?.name ?? "Clients",
                command: command)
            return FileHolder(
                name: client.name ?? typed,
                cell: AttachmentCell(table: client.table, recordID: client.id, field: field.name, fieldID: field.id))
        }
    }
}
