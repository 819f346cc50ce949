import TrackerAPI
import TrackerModel

/// Which attachment field `attach` and `files` use (docs/contract.md "Files"): `--field`, else the secrets file's
/// `"images"`, else the template's field ("Project images", a client's "Logo"), else the table's only attachment
/// field. Several with none chosen, or none at all, is a usage error listing them.
package struct AttachmentFieldChoice: Sendable {
    /// The field's name and, with the schema, its id.
    package var name: String
    package var id: String?

    package static func pick(
        flag: String?, mapped: FieldSettings.Setting?, template: String, table: BaseSchema.Table?, tableName: String,
        command: String
    ) throws -> AttachmentFieldChoice {
        guard let table else {
            // Without the schema tracker cannot see types: it takes the name given and Airtable refuses a wrong one.
            if let flag { return AttachmentFieldChoice(name: flag, id: nil) }
            if case .named(let name)? = mapped { return AttachmentFieldChoice(name: name, id: nil) }
            if case .absent? = mapped { throw noneMapped(command: command) }
            return AttachmentFieldChoice(name: template, id: nil)
        }
        let attachments = table.fields.filter { $0.type == "multipleAttachments" }
        let list = attachments.map { "\"\(TextCells.folded($0.name))\"" }.joined(separator: ", ")
        func field(_ name: String, said: String) throws -> AttachmentFieldChoice {
            guard let field = table.field(matching: name) else {
                throw AppError.usage(
                    "\(said) names \"\(TextCells.folded(name))\", which \"\(TextCells.folded(tableName))\" does not have"
                        + (attachments.isEmpty ? "" : "; its attachment fields: \(list)"), command: command)
            }
            guard field.type == "multipleAttachments" else {
                throw AppError.usage(
                    "\"\(TextCells.folded(field.name))\" is a \(field.type) field, not an attachment field"
                        + (attachments.isEmpty ? "" : "; the attachment fields: \(list)"), command: command)
            }
            return AttachmentFieldChoice(name: field.name, id: field.id)
        }
        if let flag { return try field(flag, said: "--field") }
        switch mapped {
        case .named(let name)?: return try field(name, said: "\"images\" in \"fields\"")
        case .absent?: throw noneMapped(command: command)
        case nil: break
        }
        if let found = attachments.first(where: { $0.name == template }) {
            return AttachmentFieldChoice(name: found.name, id: found.id)
        }
        guard attachments.count == 1 else {
            throw AppError.usage(
                attachments.isEmpty
                    ? "\"\(TextCells.folded(tableName))\" has no attachment field"
                    : "\"\(TextCells.folded(tableName))\" has \(attachments.count) attachment fields (\(list)); pick one with --field NAME",
                command: command)
        }
        return AttachmentFieldChoice(name: attachments[0].name, id: attachments[0].id)
    }

    private static func noneMapped(command: String) -> AppError {
        .usage(
            "the secrets file says the base has no images field (\"images\": null); name an attachment field with --field NAME",
            command: command)
    }
}
