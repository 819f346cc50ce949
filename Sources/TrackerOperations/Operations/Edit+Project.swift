import TrackerAPI
import TrackerModel

extension Edit {
    /// Reads the project, hands its form to the editor until what comes back can be checked (or the user gives up),
    /// reads the project again, and writes what changed here and nowhere else in one PATCH.
    func editProject(_ target: String, in prepared: Session, editor: FormEditor) async throws -> EditOutcome {
        async let read = Show.namesReadBeside(prepared)
        let naming = ProjectNaming(client: prepared.client)
        let project = try await naming.resolve(target)
        let session = try await prepared.withConfirmedLayout(settling: true)
        let names = await Show.linkedNames(
            of: project, in: Show.linkedTables(session), session: session, known: await read)
        let form = EditForm(project: project, layout: session.layout, recordNames: names)
        let checker = try await session.checker(command: "edit")
        let opened = form.text()
        var text = opened
        let onTerminal = editor.canFix
        var problems: [String] = []
        var checked: [(entry: EditForm.Entry, value: String, write: ProjectWrite)] = []
        while true {
            let shown = problems.isEmpty ? text : EditForm.problemLines(problems) + text
            let edited = Edit.withoutProblems(try editor.edit(shown, project.id, opened))
            if edited == text {
                // Quitting without saving: the first time that is "no changes"; after an error it keeps what was typed.
                guard problems.isEmpty else {
                    throw AppError.editKept(
                        .usage(Self.oneLine(problems), command: "edit"), path: editor.keep(text, project.id))
                }
                return .nothingWritten("no changes")
            }
            text = edited
            problems = []
            checked = []
            do {
                guard let values = try form.read(text) else {
                    return .nothingWritten("no changes: the form was emptied")
                }
                for (entry, value) in form.changes(in: values) {
                    do {
                        checked.append(
                            (
                                entry, value,
                                try await check(
                                    value, for: entry, with: checker, today: session.today,
                                    zone: session.surroundings.timeZone)
                            ))
                    } catch let error as AppError {
                        guard case .usage(let message, _) = error else { throw error }
                        let named = message.hasPrefix(entry.label + ":") || message.hasPrefix("\"\(entry.label)\":")
                        problems.append(named ? message : "\(entry.label): \(message)")
                    }
                }
            } catch let error as EditForm.Problems {
                // Numbered as the editor will show them, below these lines and a "#".
                problems = error.messages(offset: onTerminal ? error.lines.count + 1 : 0)
            } catch let error as AppError {
                throw AppError.editKept(error, path: editor.keep(text, project.id))
            }
            if problems.isEmpty { break }
            // On a terminal the form comes back with what is wrong at the top; elsewhere nobody could fix it.
            guard onTerminal else {
                throw AppError.editKept(
                    .usage(Self.oneLine(problems), command: "edit"), path: editor.keep(text, project.id))
            }
        }
        guard !checked.isEmpty else {
            return .nothingWritten("no changes")
        }
        do {
            let now = try await naming.resolve(project.id)
            let there = EditForm(project: now, layout: session.layout, recordNames: names)
            let write = try Self.stillToWrite(checked, opened: form, there: there)
            guard !write.cells.isEmpty else {
                return .nothingWritten("no changes: Airtable already has them")
            }
            let change = ProjectChange(id: project.id, write: write)
            if mode.dryRun { return .planned(session.client.plannedUpdates([change])) }
            var updated: Project?
            // Only the cells changed here and not there: sent again, should the edit be run again.
            try await session.sending { try await $0.updateProjects([change], known: [now]) { updated = $0.first } }
            return .project(updated ?? project, wrote: write)
        } catch let error as AppError {
            throw AppError.editKept(error, path: editor.keep(text, project.id))
        }
    }

    /// What is wrong with the form, for one line of stderr.
    private static func oneLine(_ problems: [String]) -> String {
        problems.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }.joined(separator: "; ")
    }

    /// The cells one changed line writes, checked as `update` checks its flag (or `--set` the base's own field).
    private func check(
        _ value: String, for entry: EditForm.Entry, with checker: ValueChecker, today: CalendarDate, zone: Zone
    ) async throws
        -> ProjectWrite
    {
        switch entry.key {
        case .field(let field):
            var write = ProjectWrite()
            write[checker.writeTarget(for: field)] =
                value.isEmpty
                ? (field.type == "checkbox" ? .bool(false) : .null)
                : try await checker.value(value, for: field, flag: "")
            return write
        case .word(let word):
            var input = ProjectInput()
            var notes: String?
            if value.isEmpty {
                guard word != .name else { throw AppError.usage("every project needs a name", command: "edit") }
                guard word != .complete else { throw AppError.usage("yes or no", command: "edit") }
                input.cleared = [word]
                return try await checker.write(for: input, notes: nil)
            }
            if word != .notes, let character = TextRules.forbiddenCharacter(in: value) {
                throw AppError.usage(
                    "holds a control character (U+\(String(character.value, radix: 16, uppercase: true)))",
                    command: "edit")
            }
            let list = value.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
            switch word {
            case .name: input.name = value
            case .category: input.category = value
            case .lead: input.lead = value
            case .team: input.team = list
            case .client: input.clients = list
            case .notes:
                input.notes = .text(value)
                notes = value
            case .due, .kickoff:
                let date = try typed(value, as: "date", today: today, zone: zone).stringValue.flatMap(CalendarDate.init)
                if word == .due { input.due = date } else { input.kickoff = date }
            case .complete:
                input.complete = try typed(value, as: "checkbox", today: today, zone: zone).boolValue
            }
            return try await checker.write(for: input, notes: notes)
        }
    }

    /// `value` read as `--set` reads a field of `type` (dates in every form the flags take, yes/no for a checkbox).
    private func typed(_ value: String, as type: String, today: CalendarDate, zone: Zone) throws -> JSONValue {
        let field = BaseSchema.Field(id: "", name: "", type: type)
        switch FieldInput.read(value, for: field, today: today, timeZone: zone) {
        case .success(.ready(let cell)): return cell
        case .failure(let problem): throw AppError.usage(problem.message, command: "edit")
        case .success: throw AppError.usage("\"\(value)\" is not a \(type)", command: "edit")
        }
    }

    /// Of the lines changed in the form, the cells Airtable does not already hold, as the project `there` now is: a
    /// line changed there too, to another value, is a conflict.
    package static func stillToWrite(
        _ checked: [(entry: EditForm.Entry, value: String, write: ProjectWrite)], opened: EditForm, there: EditForm
    ) throws -> ProjectWrite {
        var write = ProjectWrite()
        var conflicts: [String] = []
        for (entry, value, cells) in checked {
            let before = opened.value(of: entry.label) ?? ""
            let current = there.value(of: entry.label) ?? before
            if current == before {
                for cell in cells.cells { write[cell.target] = cell.value }
            } else if current != value {
                func shown(_ text: String) -> String {
                    text.isEmpty ? "empty" : "\"\(TextCells.folded(String(text.prefix(60))))\""
                }
                conflicts.append("\(entry.label) is \(shown(current)) in Airtable, \(shown(value)) here")
            }
        }
        guard conflicts.isEmpty else { throw AppError.editConflict(conflicts) }
        return write
    }
}
