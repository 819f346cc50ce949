#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerNetwork
import TrackerSystem

/// `tracker edit`: one project as a text form in the user's editor; what was changed there is checked and written.
struct Edit: Command {
    static let spec = CommandSpec(
        name: "edit", summary: "Edit one project's fields as a text form in $VISUAL or $EDITOR.",
        usage: ["tracker edit ID|NAME [--dry-run] [--json] [-q]", "tracker edit --task TASK [--project PROJECT]"],
        positional: "ID|NAME", arguments: .projects,
        flags: RecordTarget.flags + CommandSpec.writeFlags,
        examples: [
            "tracker edit \"CMCA brand identity\"", "EDITOR=nano tracker edit rec3g0Xxmw2rw3scs",
            "VISUAL=\"code --wait\" tracker edit \"Logo refresh\"",
        ],
        notes: [
            "The editor is $VISUAL, else $EDITOR, else vi, run by sh. Only the fields you change are sent, checked",
            "as update checks them, in one request. A field someone changed in Airtable meanwhile is kept as it now",
            "is; one changed there and here is a conflict, and nothing is written. Whenever an edit is not applied,",
            "what you typed is kept in a file the message names. It prints the project's id. "
                + CommandSpec.namingNote,
        ])

    var target: RecordTarget
    var mode = WriteMode()

    func run(_ runner: Runner) async throws {
        switch target {
        case .project(let project): try await runner.edit(project, mode: mode)
        case .task(let task, let project): try await runner.editTask(task, project: project, mode: mode)
        }
    }
}

extension Edit {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.recordTarget()
        try scanned.rejectPositionals(allowed: 1)
        self.init(target: target, mode: try scanned.writeMode())
    }
}

extension Runner {
    /// Reads the project, hands its form to the editor until what comes back can be checked (or the user gives up),
    /// reads the project again, and writes what changed here and nowhere else in one PATCH.
    fileprivate func edit(_ target: String, mode: WriteMode) async throws {
        let editor = try editorCommand()
        // Cold, the record (and the template's linked names) go out beside the schema read, as for show.
        let prepared = try await prepareBase(readingBeside: true)
        async let read = Show.namesReadBeside(prepared)
        let naming = ProjectNaming(client: prepared.client)
        let project = try await naming.resolve(target)
        var base = prepared
        base.layout = try await prepared.confirmedLayout()
        base.inFlight = nil
        let names = await Show.linkedNames(of: project, in: Show.linkedTables(base), base: base, known: await read)
        let form = EditForm(project: project, layout: base.layout, recordNames: names)
        let checker = try await base.checker(command: "edit")
        let opened = form.text()
        let files = EditFiles(context: context, recordID: project.id, opened: opened)
        var text = opened
        let onTerminal = context.isStdinTerminal && output.isStderrTerminal
        var problems: [String] = []
        var checked: [(entry: EditForm.Entry, value: String, write: ProjectWrite)] = []
        while true {
            let shown = problems.isEmpty ? text : EditForm.problemLines(problems) + text
            let edited = Self.withoutProblems(try files.edit(shown, editor: editor))
            if edited == text {
                // Quitting without saving: the first time that is "no changes"; after an error it keeps what was typed.
                guard problems.isEmpty else {
                    throw AppError.editKept(.usage(Self.oneLine(problems), command: "edit"), path: files.keep(text))
                }
                output.standardError("tracker: no changes\n")
                return
            }
            text = edited
            problems = []
            checked = []
            do {
                guard let values = try form.read(text) else {
                    output.standardError("tracker: no changes: the form was emptied\n")
                    return
                }
                for (entry, value) in form.changes(in: values) {
                    do {
                        checked.append((entry, value, try await check(value, for: entry, with: checker)))
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
                throw AppError.editKept(error, path: files.keep(text))
            }
            if problems.isEmpty { break }
            // On a terminal the form comes back with what is wrong at the top; elsewhere nobody could fix it.
            guard onTerminal else {
                throw AppError.editKept(.usage(Self.oneLine(problems), command: "edit"), path: files.keep(text))
            }
        }
        guard !checked.isEmpty else {
            output.standardError("tracker: no changes\n")
            return
        }
        do {
            let now = try await naming.resolve(project.id)
            let there = EditForm(project: now, layout: base.layout, recordNames: names)
            let write = try Self.stillToWrite(checked, opened: form, there: there)
            guard !write.cells.isEmpty else {
                output.standardError("tracker: no changes: Airtable already has them\n")
                return
            }
            let change = ProjectChange(id: project.id, write: write)
            if mode.dryRun { return try printPlanned(base.client.plannedUpdates([change])) }
            var updated: Project?
            try await base.client.updateProjects([change]) { updated = $0.first }
            let written = updated ?? project
            narrate("Updated \"\(written.name ?? written.id)\": \(describe(write, as: written)).", mode)
            try printWritten(written, mode)
        } catch let error as AppError {
            throw AppError.editKept(error, path: files.keep(text))
        }
    }

    /// What is wrong with the form, for one line of stderr.
    private static func oneLine(_ problems: [String]) -> String {
        problems.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }.joined(separator: "; ")
    }

    /// `$VISUAL`, else `$EDITOR`, else vi, as git chooses; vi only on a terminal, where it can be used.
    func editorCommand() throws -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let editor = context.environment[name], !editor.trimmingWhitespace().isEmpty { return editor }
        }
        guard context.isStdinTerminal else {
            throw AppError.usage(
                "edit needs an editor: there is no terminal for vi, and neither VISUAL nor EDITOR is set",
                command: "edit")
        }
        return "vi"
    }

    /// The form without the `# error:` lines tracker put above it.
    static func withoutProblems(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let first = lines.first, first.hasPrefix(EditForm.problemPrefix) || first == "#" { lines.removeFirst() }
        return lines.joined(separator: "\n")
    }

    /// The cells one changed line writes, checked as `update` checks its flag (or `--set` the base's own field).
    private func check(_ value: String, for entry: EditForm.Entry, with checker: ValueChecker) async throws
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
                let date = try typed(value, as: "date").stringValue.flatMap(CalendarDate.init)
                if word == .due { input.due = date } else { input.kickoff = date }
            case .complete:
                input.complete = try typed(value, as: "checkbox").boolValue
            }
            return try await checker.write(for: input, notes: notes)
        }
    }

    /// `value` read as `--set` reads a field of `type` (dates in every form the flags take, yes/no for a checkbox).
    private func typed(_ value: String, as type: String) throws -> JSONValue {
        let field = BaseSchema.Field(id: "", name: "", type: type)
        switch FieldInput.read(value, for: field, today: today, timeZone: context.timeZone) {
        case .success(.ready(let cell)): return cell
        case .failure(let problem): throw AppError.usage(problem.message, command: "edit")
        case .success: throw AppError.usage("\"\(value)\" is not a \(type)", command: "edit")
        }
    }

    /// Of the lines changed in the form, the cells Airtable does not already hold, as the project `there` now is: a
    /// line changed there too, to another value, is a conflict.
    static func stillToWrite(
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
