import TrackerBoard
import TrackerOperations

/// Every subcommand, in the order help lists them: adding a command is its operation, its face under Faces/ (or, for
/// one only the command line has, a file under Commands/) and a line here.
enum CommandRegistry {
    /// Every subcommand as a closure, so that finding one by name makes only the types tried before it: their
    /// conformances are instantiated at run time (0.1 ms for all of them), and `list`, the commonest, is first.
    private static let entries: [@Sendable () -> any Command.Type] = [
        { List.self }, { Add.self }, { Show.self }, { Open.self }, { Comment.self }, { Comments.self }, { Update.self },
        { Edit.self }, { Done.self }, { Reopen.self }, { Delete.self }, { Import.self }, { Tasks.self },
        { TaskCommand.self }, { Status.self }, { Board.self }, { Attach.self }, { Files.self }, { Clients.self },
        { Init.self }, { Demo.self }, { MCP.self }, { Serve.self }, { Report.self }, { Changes.self },
        { CalendarFeed.self },
        { Timeline.self }, { History.self }, { Undo.self }, { Approvals.self }, { Approve.self },
        { Reject.self }, { Doctor.self }, { Usage.self }, { Completion.self },
        { Help.self },
    ]

    static let all: [any Command.Type] = entries.map { $0() }

    /// The specs of every subcommand, in the same order.
    static let specs: [CommandSpec] = all.map { $0.spec }

    /// The command called `name`, if there is one.
    static func command(named name: String) -> (any Command.Type)? {
        for entry in entries where entry().spec.name == name { return entry() }
        return nil
    }

    /// The spec of the command called `name`, if there is one.
    static func spec(named name: String) -> CommandSpec? { command(named: name)?.spec }
}
