#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

/// A tool's run: its command's operation run as the command line runs it, the typed outcome encoded. Each tool carries
/// its own (`MCPTool.run`), beside its schema and its result's shape, so the tool table is the only list of tools and
/// a tool cannot be declared without one.
package typealias ToolRun = @Sendable (ToolCall) async throws -> JSONValue

/// What a tool's run is given: the arguments read as its command's, the day, the call's scope (its Ctrl-C and who
/// asks), its progress, and the host's sessions.
package struct ToolCall: Sendable {
    package let tool: MCPTool
    package let plan: ToolArguments.Plan
    package let today: CalendarDate
    package let scope: Workspace.Scope
    package let progress: ProgressSink?
    package let host: ToolHost

    /// The named arguments, as the command's flags.
    package var named: ScannedArguments { plan.named }

    /// Sessions for this call, opened as the command line opens them.
    package var opener: SessionOpener { host.opener(scope) }

    /// A listing's result: the first items under the tool's own noun (its result shape's), with the total counted.
    package func listing(_ items: [JSONValue], total: Int) -> JSONValue {
        ToolRunner.wrapped(tool.result.noun ?? "items", items, total: total)
    }

    /// An outcome the tool never asks for (a dry run's plan, a comment not sent): the server's own fault, said so.
    package func nothingToGive() -> AppError { ToolRunner.nothingToGive(tool.name) }
}

extension MCPTool.ResultShape {
    /// The noun a list is given under; nil for an object.
    package var noun: String? {
        switch self {
        case .object: nil
        case .array(let noun, _), .listing(let noun, _), .lines(let noun, _): noun
        }
    }
}
