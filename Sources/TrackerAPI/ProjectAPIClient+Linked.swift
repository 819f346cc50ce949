#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
@_spi(Sending) import TrackerNetwork
import TrackerModel

extension ProjectAPIClient {
    /// Records of another table of the base (by name or id) matching `formula`, named by their primary field; at
    /// most `limit`, so a lookup never reads a whole table.
    public func linkedRecords(in table: String, primaryField: String, matching formula: String, limit: Int = 100)
        async -> Result<[LinkedRecord], AppError>
    {
        let query = ListQuery(filterByFormula: formula, maxRecords: limit, fields: [primaryField])
        // Not `send`: its explanations name the projects table.
        return await collectPages(
            { offset in
                await network.send(listRequest(url(ofTable: table), query, offset: offset), kind: .idempotent)
                    .flatMap { data in
                        Result { () throws(AppError) in
                            try RecordDecoding.linkedRecords(data, primaryField: primaryField)
                        }
                    }
            }, id: \.id)
    }

    /// Names in another table's primary field that may be what the user meant by `name`, from a bounded search.
    public func linkedNames(resembling name: String, in table: String, primaryField: String) async -> Result<
        [String], AppError
    > {
        guard let formula = Self.resemblanceFormula(name, field: primaryField) else { return .success([]) }
        return await linkedRecords(in: table, primaryField: primaryField, matching: formula, limit: 200).map {
            $0.compactMap(\.name)
        }
    }
}
