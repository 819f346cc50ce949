import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// The columns `tracker import` reads, and how a row's values become a `ProjectInput`.
///
/// Columns: `name due kickoff category lead team client notes complete`, plus what `list` writes (`lead-name`,
/// `lead-email`, `clients`, `status`, and `id` and `createdTime`, which are ignored). A column that is present but
/// empty means the field is empty.
package enum ImportColumns {
    package static let known = [
        "name", "due", "kickoff", "category", "lead", "lead-name", "lead-email", "team", "client", "clients", "notes",
        "complete", "status", "id", "createdtime",
    ]

    /// Columns that are not tracker's, named as the row has them: the base's own fields, or mistakes.
    package static func others(in row: ImportRow) -> [String] {
        row.values.keys.filter { !known.contains($0.lowercased()) }.sorted()
    }

    /// The project a row describes, or what is wrong with it (each problem a phrase, without the line).
    package static func input(_ row: ImportRow, today: CalendarDate) -> Result<ProjectInput, ImportProblem> {
        var values: [String: ImportValue] = [:]
        for (key, value) in row.values { values[key.lowercased()] = value }
        var input = ProjectInput()
        func fail(_ message: String) -> Result<ProjectInput, ImportProblem> {
            .failure(ImportProblem(line: row.line, message: message))
        }
        func clear(_ word: FieldMap.Word) { if !input.cleared.contains(word) { input.cleared.append(word) } }
        func single(_ column: String) -> String? {
            switch values[column] {
            case .text(let text)?: return text
            case .person(let name, let email)?: return email ?? name
            case .bool(let flag)?: return flag ? "true" : "false"
            default: return nil
            }
        }
        func text(_ column: String, breaks: Bool = false) throws(ImportProblem) -> String? {
            guard let value = single(column) else { return nil }
            do {
                try TextRules.refuseControlCharacters(value, flag: column, command: nil, allowingLineBreaks: breaks)
            } catch {
                throw ImportProblem(line: row.line, message: (error as? AppError)?.message ?? "\(error)")
            }
            return value
        }
        func date(_ column: String) throws(ImportProblem) -> CalendarDate? {
            guard let value = single(column) else { return nil }
            switch DateInput.read(value, today: today) {
            case .date(let date): return date
            case .impossible: throw ImportProblem(line: row.line, message: "\(column) \"\(value)\" is not a real date")
            case .unrecognized: throw ImportProblem(line: row.line, message: "\(column) \"\(value)\" is not a date")
            }
        }
        /// A list cell: a JSON list, or text with `;` between values.
        func list(_ column: String) throws(ImportProblem) -> [String]? {
            let items: [String]
            switch values[column] {
            case .list(let list)?:
                items = list.compactMap { item in
                    switch item {
                    case .text(let text): text
                    case .person(let name, let email): email ?? name
                    default: nil
                    }
                }
            case .text(let text)?: items = text.split(separator: ";").map { $0.trimmingWhitespace() }
            case .person(let name, let email)?: items = [email ?? name].compactMap { $0 }
            default: return nil
            }
            for item in items {
                do {
                    try TextRules.refuseControlCharacters(item, flag: column, command: nil)
                } catch {
                    throw ImportProblem(line: row.line, message: (error as? AppError)?.message ?? "\(error)")
                }
            }
            return items.filter { !$0.isEmpty }
        }
        do {
            input.name = try text("name")
            if values["name"] == .empty { return fail("name is empty") }
            input.due = try date("due")
            input.kickoff = try date("kickoff")
            if values["kickoff"] == .empty { clear(.kickoff) }
            input.category = try text("category")
            if values["category"] == .empty { clear(.category) }
            input.lead = try text("lead") ?? text("lead-email") ?? text("lead-name")
            if input.lead == nil, ["lead", "lead-email", "lead-name"].contains(where: { values[$0] == .empty }) {
                clear(.lead)
            }
            input.team = try list("team")
            if values["team"] == .empty { clear(.team) }
            input.clients = try list("client") ?? list("clients")
            if values["client"] == .empty || values["clients"] == .empty { clear(.client) }
            input.notes = try text("notes", breaks: true).map(NotesSource.text)
            if values["notes"] == .empty { clear(.notes) }
        } catch let problem as ImportProblem {
            return .failure(problem)
        } catch {
            return fail("\(error)")
        }
        switch (values["complete"], values["status"]) {
        case (.bool(let flag)?, _): input.complete = flag
        case (.text(let text)?, _):
            switch text.lowercased() {
            case "true", "yes", "y", "1", "x", "done", "complete": input.complete = true
            case "false", "no", "n", "0", "open": input.complete = false
            default: return fail("complete \"\(text)\" is not true or false")
            }
        case (.empty?, _): input.complete = false
        case (nil, .text(let status)?):
            switch status.lowercased() {
            case "done": input.complete = true
            case "open", "overdue": input.complete = false
            default: return fail("status \"\(status)\" is not done, open or overdue")
            }
        default: break
        }
        return .success(input)
    }
}
