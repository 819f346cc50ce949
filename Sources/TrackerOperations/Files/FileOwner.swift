import TrackerAPI
import TrackerModel

/// Whose files `attach` and `files` handle: a project, by id or name, or a client's logo (`--client NAME|ID`).
package enum FileOwner: Equatable, Sendable {
    case project(String)
    case client(String)

    /// `--client` for a client's files.
    package static let flags = [
        FlagSpec(name: "--client", value: "NAME|ID", help: "a client's files (its Logo) in place of a project's"),
        FlagSpec(name: "--field", value: "NAME", help: "the attachment field to use (default: Project images, Logo)"),
    ]
}

/// The record found and the cell holding its files.
package struct FileHolder: Sendable {
    package var name: String
    package var cell: AttachmentCell
    /// The cell as the lookup read it (a project named by name is read whole), so it need not be read again.
    package var attachments: [Attachment]? = nil

    /// The attachments now: as the lookup read them, else read.
    package func current(_ client: ProjectAPIClient) async throws -> [Attachment] {
        if let attachments { return attachments }
        return try await client.attachments(in: cell).get()
    }
}

extension ScannedArguments {
    /// The owner (`--client`, else the first word) and the words after it.
    package func fileOwner() throws -> (owner: FileOwner, rest: [String]) {
        let name = command?.name ?? ""
        if let client = try nonEmpty("--client") {
            try TextRules.refuseControlCharacters(client, flag: "--client", command: name)
            return (.client(client), positionals)
        }
        return (.project(try projectTarget()), Array(positionals.dropFirst()))
    }
}

extension Session {
    /// Finds the owner's record and picks its attachment field; `forgiving` for reading commands.
    package func fileHolder(_ owner: FileOwner, field flag: String?, command: String, forgiving: Bool)
        async throws -> FileHolder
    {
        switch owner {
        case .project(let typed):
            // By id the cell's own read finds the record (in this table only): no lookup first, one round trip less.
            let found =
                ProjectAPIClient.looksLikeRecordID(typed)
                ? FoundRecord(id: typed, route: nil, tableID: nil, name: typed)
                : try await self.find(.project(typed), forgiving: forgiving)
            let layout = try await self.confirmedLayout()
            let field = try AttachmentFieldChoice.pick(
                flag: flag, mapped: self.client.access.images, template: "Project images", table: layout.table,
                tableName: self.client.access.table, command: command)
            // Airtable leaves an empty cell out of a record read whole.
            let read = found.project.map { project in
                Attachment.list(project.otherFields.first { $0.name == field.name }?.value)
            }
            return FileHolder(
                name: found.name,
                cell: AttachmentCell(
                    table: layout.table?.id ?? self.client.access.table, recordID: found.id, field: field.name,
                    fieldID: field.id), attachments: read)
        case .client(let typed):
            let client = try await self.client(named: typed, command: command)
            let table = try await self.confirmedLayout().schema?.table(client.table)
            let field = try AttachmentFieldChoice.pick(
                flag: flag, mapped: nil, template: "Logo", table: table, tableName: table?.name ?? "Clients",
                command: command)
            return FileHolder(
                name: client.name ?? typed,
                cell: AttachmentCell(table: client.table, recordID: client.id, field: field.name, fieldID: field.id))
        }
    }
}
