import TrackerAPI
import TrackerModel

/// `tracker task VERB …`: one command word whose verbs are each a type in a file of its own (TaskAdd, TaskShow,
/// TaskCompletion); this file only says which verb was typed and that its flags are its own.
package struct TaskCommand: Equatable, Sendable {
    package static let spec = CommandSpec(
        name: "task", summary: "Add a task to a project, show, change, tick off, reopen or delete it.",
        usage: [
            "tracker task add    PROJECT NAME [--assignee EMAIL|NAME|me] [--estimate DAYS]",
            "                    [--notes TEXT | --notes-file PATH|-] [--if-absent] [--dry-run] [--json] [-q]",
            "tracker task show   TASK [--project PROJECT] [--json]",
            "tracker task update TASK [--project PROJECT] [--name NAME] [--assignee …] [--estimate DAYS]",
            "                    [--notes …] [--move-to PROJECT] [--clear assignee,estimate,notes] [--dry-run]",
            "tracker task done   TASK... [--project PROJECT] [--dry-run] [--json] [-q]",
            "tracker task reopen TASK... [--project PROJECT] [--dry-run] [--json] [-q]",
            "tracker task delete TASK... [--project PROJECT] [--yes] [--dry-run] [-q]",
        ],
        positional: "VERB", arguments: .taskVerbs,
        flags: [
            FlagSpec(name: "--project", value: "PROJECT", help: "look for the task among this project's tasks only"),
            FlagSpec(name: "--assignee", value: "EMAIL|NAME|me", help: "who does it: an email, a collaborator, or me"),
            FlagSpec(
                name: "--estimate", value: "DAYS", help: "how long it takes: 1.5, 0.5, 2d, or 1w (5 days)",
                declaredType: .quantity),
            FlagSpec(name: "--notes", value: "TEXT", help: "notes for the task"),
            FlagSpec(name: "--notes-file", value: "PATH", help: "read the notes from a file, or from stdin with -"),
            FlagSpec(name: "--if-absent", help: "add: print the id of a task of that name in the project, if any"),
            FlagSpec(name: "--name", value: "NAME", help: "update: the task's new name"),
            FlagSpec(name: "--move-to", value: "PROJECT", help: "update: link the task to this project instead"),
            FlagSpec(
                name: "--clear", value: "FIELDS", repeatable: true, choices: TaskUpdate.clearable.map(\.rawValue),
                checksChoices: false, help: "update: empty assignee, estimate or notes"),
            FlagSpec(name: "--yes", help: "delete: do not ask (needed when stdin is not a terminal)"),
        ] + CommandSpec.writeFlags,
        examples: [
            "tracker task add \"Coffee packaging\" Proofs --assignee me --estimate 1.5",
            "tracker task add -q --if-absent \"Weekly review\" \"Collect notes\"",
            "tracker task done \"Print proofs\" --project \"Coffee packaging\"",
            "tracker task show recXXXXXXXXXXXXXX --json",
        ],
        notes: [
            "A task is named by its id or its name (exact, else ignoring case); --project narrows the search to",
            "one project's tasks, as names such as \"Kickoff meeting\" repeat. Two matches is an error listing each",
            "id with its project. add prints the new task's id; done and reopen print the ids they set.",
        ])

    package enum Verb: Equatable, Sendable {
        case add(TaskAdd)
        case show(TaskShow)
        case completion(TaskCompletion)
        case update(TaskUpdate)
        case delete(TaskDelete)
    }

    package var verb: Verb

    /// The verb given.
    package init(verb: Verb) { self.verb = verb }
}

extension TaskCommand {
    package static let verbs = ["add", "show", "update", "done", "reopen", "delete"]

    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        guard let word = scanned.positionals.first else {
            throw AppError.usage("task needs a verb: \(Self.verbs.joined(separator: ", "))", command: "task")
        }
        var rest = scanned
        rest.positionals.removeFirst()
        let own: [String]
        switch word {
        case "add":
            own = TaskAdd.flags
            verb = .add(try TaskAdd(rest, today: today))
        case "show":
            own = TaskShow.flags
            verb = .show(try TaskShow(rest))
        case "update":
            own = TaskUpdate.flags
            verb = .update(try TaskUpdate(rest))
        case "delete":
            own = TaskDelete.flags
            verb = .delete(try TaskDelete(rest))
        case "done", "reopen":
            own = TaskCompletion.flags
            verb = .completion(try TaskCompletion(rest, complete: word == "done"))
        default:
            let suggestion = Suggestion.ending(for: word, in: Self.verbs, quote: "'")
            throw AppError.usage("unknown task verb '\(word)'.\(suggestion)", command: "task")
        }
        let globals = Set(CommandSpec.globalFlags.map(\.name))
        for flag in scanned.values.keys.sorted() where !own.contains(flag) && !globals.contains(flag) {
            throw AppError.usage("\(flag) is not a flag of 'tracker task \(word)'", command: "task")
        }
    }
}
