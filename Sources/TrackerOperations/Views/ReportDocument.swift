import TrackerModel

/// A digest written out for people (text, markdown) and scripts (JSON); HTML is `ReportHTML`.
package struct ReportDocument {
    package let digest: ProjectDigest
    package let tableName: String
    package let grouping: ProjectDigest.Grouping
    /// The sections with projects, each in its groups: made once for the text, markdown and HTML of one mail.
    package let grouped: [(section: ProjectDigest.Section, groups: [(name: String, projects: ProjectDigest.Projects)])]
    /// The open tasks of the overdue projects, when the base has a Tasks table.
    package let tasks: TaskRows?
    /// A project's address on airtable.com (what `show` prints), when the table's id is known: HTML and markdown link
    /// each name to it.
    package let address: (@Sendable (String) -> String)?

    package init(
        digest: ProjectDigest, tableName: String, grouping: ProjectDigest.Grouping, tasks: TaskRows? = nil,
        address: (@Sendable (String) -> String)? = nil
    ) {
        self.digest = digest
        self.tableName = tableName
        self.grouping = grouping
        self.tasks = tasks
        self.address = address
        grouped = ProjectDigest.Section.allCases.compactMap { section in
            let projects = digest[section]
            return projects.isEmpty ? nil : (section, ProjectDigest.groups(projects, by: grouping))
        }
    }

    /// How many rows the sections have, all told (a project new and overdue is in two).
    package var rows: Int { grouped.reduce(0) { $0 + digest[$1.section].count } }

    /// `--always` with nothing to report.
    package var nothingLine: String { "nothing overdue, due or done in the last and next \(digest.days) days" }

    package var title: String { "\(TextCells.folded(tableName)): \(digest.date)" }

    /// "3 overdue, 5 due soon, 2 done", the mail's subject after the table's name.
    package var counts: String {
        "\(digest[.overdue].count) overdue, \(digest[.due].count) due soon, \(digest[.done].count) done"
    }

    package static let width = 80

    /// Plain text for a mail body: at most 80 columns, a line a project (name, due date, lead).
    package func text() -> String {
        var out = TextCells.fit(title, Self.width).trimmedRight + "\n"
        out += "The last and next \(digest.days) days.\n"
        if digest.isEmpty { return out + "\n" + nothingLine + "\n" }
        let indent = grouping == .none ? 2 : 4
        var (widestLead, widestName) = (0, 0)
        for (section, _) in grouped {
            digest[section].forEach { project in
                widestLead = max(widestLead, TextCells.width(Self.leadName(project)))
                widestName = max(widestName, TextCells.width(Self.name(project)))
            }
        }
        let leadWidth = min(20, widestLead)
        let room = Self.width - indent - 12 - (leadWidth > 0 ? leadWidth + 2 : 0)
        let nameWidth = min(room, widestName)
        out.reserveCapacity(out.utf8.count + rows * (indent + nameWidth + leadWidth + 16) + 1024)
        for (section, groups) in grouped {
            out += "\n\(section.title) (\(digest[section].count))\n"
            for group in groups {
                if grouping != .none {
                    out +=
                        "  "
                        + TextCells.fit("\(TextCells.folded(group.name)) (\(group.projects.count))", 76).trimmedRight
                    out += "\n"
                }
                let margin = String(repeating: " ", count: indent)
                group.projects.forEach { project in
                    out += margin
                    TextCells.appendFitted(Self.name(project), nameWidth, to: &out)
                    out += "  "
                    let due = TextCells.fit(project.due?.description ?? "no due", 10)
                    let lead = leadWidth > 0 ? TextCells.fit(Self.leadName(project), leadWidth).trimmedRight : ""
                    out += lead.isEmpty ? due.trimmedRight : due
                    if !lead.isEmpty {
                        out += "  "
                        out += lead
                    }
                    out += "\n"
                }
            }
        }
        return out + tasksText()
    }

    /// Markdown: a heading a section (and a group), a list item a project, every name escaped.
    package func markdown() -> String {
        var out = "# \(Self.escapedMarkdown(title))\n\nThe last and next \(digest.days) days.\n"
        if digest.isEmpty { return out + "\n" + nothingLine + "\n" }
        for (section, groups) in grouped {
            out += "\n## \(section.title) (\(digest[section].count))\n"
            for group in groups {
                if grouping != .none {
                    out += "\n### \(Self.escapedMarkdown(TextCells.folded(group.name))) (\(group.projects.count))\n"
                }
                out += "\n"
                group.projects.forEach { project in
                    var details = [project.due.map { "due \($0)" } ?? "no due date"]
                    // A lead grouped under their own name is not repeated on every row.
                    if let lead = project.lead, grouping != .lead {
                        details.append(Self.escapedMarkdown(TextCells.folded(lead.displayName)))
                    }
                    let name = Self.escapedMarkdown(Self.name(project))
                    let linked = address.map { "[\(name)](\($0(project.id)))" } ?? name
                    out += "- \(linked) (\(details.joined(separator: ", ")))\n"
                }
            }
        }
        return out + tasksMarkdown()
    }

    /// `{"date","days","sections":{"overdue":[…],"due":[…],"done":[…],"new":[…]}}` with the stable project objects.
    package func json(today: CalendarDate) -> String {
        var json = JSONWriter(capacity: 4096)
        write(today: today, to: &json)
        return json.text + "\n"
    }

    /// The same object as a value.
    package func jsonValue(today: CalendarDate) -> JSONValue { JSONTree.build { write(today: today, to: &$0) } }

    private func write<Sink: JSONSink>(today: CalendarDate, to json: inout Sink) {
        json.beginObject()
        json.key("date")
        json.string(digest.date.description)
        json.key("days")
        json.number(Double(digest.days))
        json.key("sections")
        json.beginObject()
        for section in ProjectDigest.Section.allCases {
            json.key(section.rawValue)
            json.beginArray()
            digest[section].forEach { project in project.writeJSON(today: today, to: &json) }
            json.endArray()
        }
        json.endObject()
        if let tasks {
            json.key("tasks")
            json.beginArray()
            for task in tasks.tasks { tasks.write(task, to: &json) }
            json.endArray()
        }
        json.endObject()
    }

    package static func name(_ project: Project) -> String { TextCells.folded(project.name ?? project.id) }
    package static func leadName(_ project: Project) -> String { TextCells.folded(project.lead?.displayName ?? "") }

    /// Text that stays literal in CommonMark: the punctuation that starts markup anywhere is backslash-escaped
    /// (CommonMark allows escaping any ASCII punctuation), and so is what would start a list at the front, so
    /// `*_[|` and `<script>` show as typed.
    package static func escapedMarkdown(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let leadingDigits = text.prefix { $0.isASCII && $0.isNumber }.count
        for (offset, character) in text.enumerated() {
            let startsList =
                (offset == 0 && (character == "-" || character == "+"))
                || (offset == leadingDigits && offset > 0 && (character == "." || character == ")"))
            if startsList || (character.isASCII && "\\`*_{}[]<>#!|~&".contains(character)) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}

extension String {
    /// Without the spaces at the end, which a mail body or a terminal does not need.
    package var trimmedRight: String {
        // By bytes: a space is one, and a report trims a line per project.
        var end = utf8.endIndex
        while end > utf8.startIndex, utf8[utf8.index(before: end)] == 32 { end = utf8.index(before: end) }
        return end == utf8.endIndex ? self : String(self[..<end])
    }
}
