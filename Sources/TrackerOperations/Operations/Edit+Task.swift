import TrackerAPI
import TrackerModel

extension Edit {
    /// `tracker edit --task TASK`: the task as a text form in the editor; what changed there is checked as `task
    /// update` checks its flags, the task is read again, and only fields changed here and not there are written. A
    /// field changed in both places is a conflict; whenever nothing is written, what was typed is kept.
    func editTask(_ typed: String, project: String?, in session: Session, editor: FormEditor) async throws
        -> EditOutcome
    {
        let layout = try session.taskLayout()
        let naming = try await session.taskNaming(layout, project: project)
        let task = try await naming.resolve(typed)
        var projectName: String?
        if let id = task.project { projectName = try await session.reader.projects(ids: [id]).get().first?.name }
        let form = TaskEditForm(task: task, layout: layout, projectName: projectName)
        let opened = form.text()
        let edited = Edit.withoutProblems(try editor.edit(opened, task.id, opened))
        guard edited != opened else {
            return .nothingWritten("no changes")
        }
        do {
            guard let read = try form.read(edited) else {
                return .nothingWritten("no changes: the form was emptied")
            }
            let changed = form.changes(in: read)
            guard !changed.isEmpty else {
                return .nothingWritten("no changes")
            }
            var write = try await session.taskCells(try values(changed), layout: layout)
            for (word, value) in changed {
                if word == .complete, let completion = layout.fields.completion {
                    write[TaskWord.complete] = completion.value(complete: try yesOrNo(value))
                } else if value.isEmpty && [TaskWord.assignee, .estimate, .notes].contains(word) {
                    write[word] = JSONValue.null
                }
            }
            // Someone may have changed the task while the editor was open: a field changed there and here is a
            // conflict, one changed only there is kept as it now is.
            let now = try await naming.resolve(task.id)
            let there = TaskEditForm(task: now, layout: layout, projectName: nil).values
            let conflicts = changed.filter { there[$0.word] != form.values[$0.word] }
            guard conflicts.isEmpty else {
                let first = conflicts[0]
                throw AppError.usage(
                    "\(TaskEditForm.label(first.word)) is \"\(there[first.word] ?? "")\" in Airtable, \"\(first.value)\" here; it changed there while you edited",
                    command: "edit")
            }
            let change = TaskChange(id: task.id, write: write)
            if mode.dryRun { return .planned(session.client.plannedTaskUpdates([change], in: layout.client)) }
            var updated = now
            try await session.sending { writes in
                try await writes.updateTasks([change], in: layout.client, known: [now]) {
                    if let first = $0.first { updated = first }
                }
            }
            return .task(updated, rows: try await session.taskRows([updated]))
        } catch let problems as EditForm.Problems {
            let text = problems.messages().joined(separator: "; ")
            throw AppError.editKept(.usage(text, command: "edit"), path: editor.keep(edited, task.id))
        } catch let error as AppError {
            throw AppError.editKept(error, path: editor.keep(edited, task.id))
        }
    }

    /// The typed values of the changed fields that `task update` would check (cleared ones are written as empty).
    private func values(_ changed: [(word: TaskWord, value: String)]) throws -> TaskValues {
        var values = TaskValues()
        for (word, value) in changed where !value.isEmpty {
            switch word {
            case .name:
                try TextRules.refuseControlCharacters(value, flag: "Name", command: "edit")
                values.name = value
            case .assignee: values.assignee = value
            case .estimate:
                guard let days = DaysInput.days(value) else {
                    throw AppError.usage(
                        "Estimate takes a number of days that is not negative (1.5, 2d, 1w), not \"\(value)\"",
                        command: "edit")
                }
                values.estimate = days
            case .notes: values.notes = .text(value)
            case .complete, .project: break
            }
        }
        if changed.contains(where: { $0.word == .name && $0.value.isEmpty }) {
            throw AppError.usage("every task needs a name", command: "edit")
        }
        return values
    }

    private func yesOrNo(_ value: String) throws -> Bool {
        switch value.lowercased() {
        case "yes", "y", "true", "1", "x": return true
        case "no", "n", "false", "0", "": return false
        default: throw AppError.usage("Completed takes yes or no, not \"\(value)\"", command: "edit")
        }
    }
}
