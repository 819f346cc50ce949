import TrackerModel

/// One write tracker made, as the journal keeps it: who, when, from which face and command or tool, and for each
/// record what it touched (the fields before and after, only those the write set; a create's new id; a deletion's
/// whole row and what linked to it). Opened with its before-values before the write is sent, completed with what
/// Airtable answered.
package struct JournalEntry: Sendable, Equatable {
    /// Where the write stands.
    package enum State: String, Sendable {
        /// Kept before the write was sent; Airtable's answer not yet had (a write whose answer was lost stays so until
        /// it is confirmed).
        case opened
        /// Airtable answered: the entry says what is there now.
        case completed
        /// Airtable refused it: nothing was written.
        case refused
        /// An approval's write: planned (its records read, its values checked), not sent; `approval` says where it
        /// stands. Never listed by `history`, never undone: the write it becomes, once approved, is an entry of its own.
        case planned
    }

    /// What happened to one record.
    package struct Change: Sendable, Equatable {
        /// `comment`: a comment added to the record (`after`: its text and id); `attach`: a file added to one of its
        /// attachment fields (`after`: the field and the new attachment).
        package enum Kind: String, Sendable { case update, create, delete, comment, attach }
        package var kind: Kind
        /// The record's id (a create's once Airtable answered).
        package var id: String?
        /// The fields the write set, as they were before it (a deletion: the whole row).
        package var before: [(String, JSONValue)]
        /// The fields the write set, as it set them.
        package var after: [(String, JSONValue)]
        /// For a deletion: the ids that linked to the record, by the field they linked through (its tasks).
        package var links: [(String, [String])]
        /// The record's table, when not the entry's.
        package var table: String? = nil
        /// For a deletion held for approval: how many comments go with the record (nil: not counted).
        package var comments: Int? = nil

        package init(
            kind: Kind, id: String?, before: [(String, JSONValue)] = [], after: [(String, JSONValue)] = [],
            links: [(String, [String])] = []
        ) {
            (self.kind, self.id, self.before, self.after, self.links) = (kind, id, before, after, links)
        }

        package static func == (lhs: Change, rhs: Change) -> Bool {
            lhs.kind == rhs.kind && lhs.id == rhs.id && lhs.table == rhs.table && lhs.comments == rhs.comments
                && JSONValue.object(lhs.before) == JSONValue.object(rhs.before)
                && JSONValue.object(lhs.after) == JSONValue.object(rhs.after)
                && lhs.links.elementsEqual(rhs.links) { $0.0 == $1.0 && $0.1 == $1.1 }
        }
    }

    /// `wrt` and 14 characters.
    package var id: String
    /// When it was opened, seconds since 1970.
    package var at: Double
    /// Airtable's id of the person it wrote as (`usr…`); nil when not known.
    package var user: String?
    /// The client an assistant signed in through (serve), or that named itself (mcp); nil for a person's own.
    package var client: String?
    /// The face that wrote: `cli`, `board`, `mcp`, `serve`, `import`.
    package var face: String
    /// The command or tool.
    package var command: String
    /// The table written, by name or id.
    package var table: String
    package var changes: [Change]
    package var state: State
    /// The fingerprint of the token it wrote with (`Journaling.fingerprint`).
    package var tokenPrint: String? = nil
    /// The entry this one undid, and the entry that undid this one.
    package var undoes: String?
    package var undoneBy: String?
    /// A planned write's approval (state `planned`); nil for a write.
    package var approval: Approval? = nil
    /// The approval a write was made for.
    package var approved: String? = nil

    package init(
        id: String = JournalEntry.newID(), at: Double, user: String?, client: String? = nil, face: String,
        command: String, table: String, changes: [Change], state: State = .opened
    ) {
        (self.id, self.at, self.user, self.client, self.face) = (id, at, user, client, face)
        (self.command, self.table, self.changes, self.state) = (command, table, changes, state)
    }

    /// A new entry's id: `wrt` and 14 letters and digits.
    package static func newID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return "wrt" + String((0..<14).map { _ in alphabet.randomElement()! })
    }

    /// Whether `text` has the shape of an entry's id.
    package static func isID(_ text: String) -> Bool { hasShape(text, prefix: "wrt") }

    /// Whether `text` has the shape of an approval's id: `apr` and 14 letters and digits.
    package static func isApprovalID(_ text: String) -> Bool { hasShape(text, prefix: "apr") }

    /// A new approval's id.
    package static func newApprovalID() -> String { "apr" + newID().dropFirst(3) }

    /// Whether `text` is an id the journal keeps (an entry's or an approval's).
    static func isKept(_ text: String) -> Bool { isID(text) || isApprovalID(text) }

    private static func hasShape(_ text: String, prefix: String) -> Bool {
        text.count == 17 && text.hasPrefix(prefix)
            && text.dropFirst(3).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}

extension JournalEntry {
    /// The entry as the journal stores it: one JSON object.
    package var json: JSONValue {
        func fields(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(pairs) }
        var members: [(String, JSONValue)] = [
            ("id", .string(id)), ("at", .number(at)), ("user", user.map(JSONValue.string) ?? .null),
            ("client", client.map(JSONValue.string) ?? .null), ("face", .string(face)), ("command", .string(command)),
            ("table", .string(table)), ("state", .string(state.rawValue)),
            (
                "changes",
                .array(
                    changes.map { change in
                        var members: [(String, JSONValue)] = [
                            ("kind", .string(change.kind.rawValue)), ("id", change.id.map(JSONValue.string) ?? .null),
                            ("before", fields(change.before)), ("after", fields(change.after)),
                            ("links", .object(change.links.map { ($0.0, .array($0.1.map(JSONValue.string))) })),
                        ]
                        if let table = change.table { members.append(("table", .string(table))) }
                        if let comments = change.comments { members.append(("comments", .number(Double(comments)))) }
                        return .object(members)
                    })
            ),
        ]
        if let tokenPrint { members.append(("token", .string(tokenPrint))) }
        if let undoes { members.append(("undoes", .string(undoes))) }
        if let undoneBy { members.append(("undoneBy", .string(undoneBy))) }
        if let approval { members.append(("approval", approval.json)) }
        if let approved { members.append(("approved", .string(approved))) }
        return .object(members)
    }

    /// An entry read back; nil when `json` is not one (a line cut short, a key someone else wrote).
    package init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, Self.isKept(id), let at = json["at"]?.numberValue,
            let face = json["face"]?.stringValue, let command = json["command"]?.stringValue,
            let table = json["table"]?.stringValue, let state = json["state"]?.stringValue.flatMap(State.init),
            let changes = json["changes"]?.arrayValue
        else { return nil }
        var read: [Change] = []
        for change in changes {
            guard let kind = change["kind"]?.stringValue.flatMap(Change.Kind.init),
                let before = change["before"]?.objectMembers, let after = change["after"]?.objectMembers,
                let links = change["links"]?.objectMembers
            else { return nil }
            var readChange = Change(
                kind: kind, id: change["id"]?.stringValue, before: before, after: after,
                links: links.map { ($0.0, $0.1.arrayValue?.compactMap(\.stringValue) ?? []) })
            readChange.table = change["table"]?.stringValue
            readChange.comments = change["comments"]?.numberValue.map { Int($0) }
            read.append(readChange)
        }
        self.init(
            id: id, at: at, user: json["user"]?.stringValue, client: json["client"]?.stringValue, face: face,
            command: command, table: table, changes: read, state: state)
        tokenPrint = json["token"]?.stringValue
        undoes = json["undoes"]?.stringValue
        undoneBy = json["undoneBy"]?.stringValue
        approval = json["approval"].flatMap(Approval.init(json:))
        approved = json["approved"]?.stringValue
    }
}
