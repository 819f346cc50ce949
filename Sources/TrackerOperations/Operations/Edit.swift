import TrackerAPI
import TrackerModel

/// `tracker edit`: one project (or task) as a text form in the person's editor; what was changed there is checked
/// and written.
package struct Edit: Operation, Equatable {
    package static let spec = CommandSpec(
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

    package var target: RecordTarget
    package var mode = WriteMode()

    /// Each option given.
    package init(target: RecordTarget, mode: WriteMode = WriteMode()) {
        (self.target, self.mode) = (target, mode)
    }

    /// Cold, a project (and the template's linked names) goes out beside the schema read, as for show.
    package var opening: SessionOpening {
        if case .project = target { .besideSchema } else { .schemaFirst }
    }

    /// Refused where the face has no editor to offer.
    package static let noEditor = AppError.usage(
        "edit needs an editor: there is no terminal for vi, and neither VISUAL nor EDITOR is set", command: "edit")

    /// Reads the record, hands its form to the face's editor until what comes back can be checked (or the person gives
    /// up), reads the record again, and writes what changed here and nowhere else in one request.
    package func run(in session: Session) async throws -> EditOutcome {
        guard let editor = session.surroundings.editor else { throw Self.noEditor }
        switch target {
        case .project(let project): return try await editProject(project, in: session, editor: editor)
        case .task(let task, let project):
            return try await editTask(task, project: project, in: session, editor: editor)
        }
    }
}

extension Edit {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.recordTarget()
        try scanned.rejectPositionals(allowed: 1)
        self.init(target: target, mode: try scanned.writeMode())
    }

    /// The form without the `# error:` lines tracker put above it.
    package static func withoutProblems(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let first = lines.first, first.hasPrefix(EditForm.problemPrefix) || first == "#" { lines.removeFirst() }
        return lines.joined(separator: "\n")
    }
}

/// What `edit` did.
package enum EditOutcome: Sendable {
    /// Nothing written, and why ("no changes", "no changes: the form was emptied"…).
    case nothingWritten(String)
    /// A dry run: the request that would have gone.
    case planned([PlannedRequest])
    /// The project as Airtable returned it, and what was written.
    case project(Project, wrote: ProjectWrite)
    /// The task as Airtable returned it, and its row.
    case task(ProjectTask, rows: TaskRows)
}
