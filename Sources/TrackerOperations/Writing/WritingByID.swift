import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
extension Session {
    /// Writes by ids alone in one request when every target is a record id and `allowed`: Airtable's answer says
    /// whether each id is one of this table's (a batch it refuses writes nothing). Returns false, having written
    /// nothing, when the targets are not all ids or Airtable says one is not in this table: the caller then finds the
    /// projects by the naming rule.
    package func writtenByID(_ targets: [String], allowed: Bool, _ write: ([String]) async throws -> Void) async throws
        -> Bool
    {
        guard allowed, targets.allSatisfy(ProjectAPIClient.looksLikeRecordID) else { return false }
        do {
            try await write(Self.unique(targets))
            return true
        } catch let error as AppError where ProjectAPIClient.isNotInThisTable(error) {
            return false
        }
    }

    /// The values in their first order, each once.
    package static func unique(_ values: [String]) -> [String] {
        values.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }
}
