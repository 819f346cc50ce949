#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// Names typed on the command line looked up among the table's fields and views, the schema read again once before
/// one is refused (it may have been added since tracker remembered the base).
package struct LayoutLookup {
    package private(set) var layout: TableLayout
    package let knowledge: BaseKnowledge
    package let command: String

    package init(layout: TableLayout, knowledge: BaseKnowledge, command: String) {
        self.layout = layout
        self.knowledge = knowledge
        self.command = command
    }

    private mutating func find<T>(_ lookup: (TableLayout) -> T?) async throws -> T? {
        if let found = lookup(layout) { return found }
        if let fresh = try await knowledge.refreshed() {
            layout = fresh
            return lookup(layout)
        }
        return nil
    }

    /// The saved view called `wanted` (any case); without the schema, taken as typed for Airtable to judge.
    package mutating func view(_ wanted: String) async throws -> String {
        guard layout.table != nil else { return wanted }
        if let found = try await find({ $0.table?.view(matching: wanted) }) { return found.name }
        let views = layout.table?.views.map(\.name) ?? []
        throw AppError.usage(
            "--view: the table has no view \"\(wanted)\"; its views are \(views.map { "\"\($0)\"" }.joined(separator: ", ")).\(Suggestion.ending(for: wanted, in: views))",
            command: command)
    }

    /// A field of the base named on the command line (any case); without the schema, taken as typed.
    package mutating func field(_ name: String, flag: String) async throws -> String {
        guard layout.table != nil else { return name }
        if let field = try await find({ $0.field(matching: name) }) { return field.name }
        let names = layout.table?.fields.map(\.name) ?? []
        throw AppError.usage(
            "\(flag): the table has no field \"\(name)\".\(Suggestion.ending(for: name, in: names)) 'tracker doctor' lists its fields",
            command: command)
    }
}

extension Session {
    /// Checks that the base has the fields `filters` need and finds `view` among its views; the lookup returned goes
    /// on finding other names in the same (possibly re-read) layout.
    package func lookUpSelection(_ filters: ProjectFilters, view: String?, command: String) async throws -> (
        lookup: LayoutLookup, view: String?
    ) {
        for (flag, word) in filters.neededWords {
            _ = try self.layout.fields.required(word, for: flag, command: command)
        }
        var lookup = LayoutLookup(layout: self.layout, knowledge: self.knowledge, command: command)
        guard let view else { return (lookup, nil) }
        return (lookup, try await lookup.view(view))
    }
}
