import TrackerModel
import TrackerOperations

extension Edit: Command {
    /// The editor chosen before anything is read; the form in a private file while it is open; what was typed kept in
    /// the state directory when it is not applied; then the written record said as update says it.
    func run(_ runner: Runner) async throws {
        let options = self
        // Chosen before anything is read: with no editor, nothing could be edited.
        var editing = runner
        editing.editor = runner.context.formEditor(try runner.context.editorCommand())
        switch try await editing.perform(options) {
        case .nothingWritten(let why): runner.output.standardError("tracker: \(why)\n")
        case .planned(let requests): try runner.printPlanned(requests)
        case .project(let project, let write):
            runner.narrate(
                "Updated \"\(project.name ?? project.id)\": \(runner.describe(write, as: project)).", options.mode)
            try runner.printWritten(project, options.mode)
        case .task(let task, let rows):
            runner.narrate("Updated \"\(task.name ?? task.id)\".", options.mode)
            try runner.printTask(task, rows, options.mode)
        }
    }
}

extension Context {
    /// The person's editor as the command line offers it: `command` run by sh on a private file, on the terminal.
    func formEditor(_ command: String) -> FormEditor {
        let context = self
        return FormEditor(
            canFix: context.isStdinTerminal && output.isStderrTerminal,
            edit: { form, id, opened in
                try EditFiles(context: context, recordID: id, opened: opened).edit(form, editor: command)
            },
            keep: { text, id in EditFiles(context: context, recordID: id, opened: "").keep(text) })
    }

    /// `$VISUAL`, else `$EDITOR`, else vi, as git chooses; vi only on a terminal, where it can be used.
    func editorCommand() throws -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let editor = environment[name], !editor.trimmingWhitespace().isEmpty { return editor }
        }
        guard isStdinTerminal else { throw Edit.noEditor }
        return "vi"
    }
}
