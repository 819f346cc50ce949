#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// The schema read going out beside a command's first request when nothing is remembered (docs/contract.md "Fewest
/// round
/// trips"): the work is sent with the fields the secrets file names (the template's, or its `"fields"`), and nothing
/// is written out before the schema confirms them.
package final class SchemaInFlight: Sendable {
    /// What the work was sent with.
    package let assumed: FieldMap
    private let read: Task<TableLayout, Error>

    /// Thrown when the schema says the base's fields are not what the work assumed: the command runs again with them.
    package struct Contradicted: Error { package init() {} }

    package init(assumed: FieldMap, read: @escaping @Sendable () async throws -> TableLayout) {
        self.assumed = assumed
        self.read = Task { try await read() }
    }

    /// The layout as read, when it agrees with what the work assumed; `Contradicted` otherwise.
    package func confirmed() async throws -> TableLayout {
        let layout = try await read.value
        guard layout.fields == assumed else { throw Contradicted() }
        return layout
    }

    /// Whether the schema, once read, disagrees with what the work assumed (a failure to read it agrees with nothing).
    package func contradicts() async -> Bool {
        guard let layout = try? await read.value else { return false }
        return layout.fields != assumed
    }
}
