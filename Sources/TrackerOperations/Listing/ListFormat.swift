/// The output formats of `tracker list`.
package enum ListFormat: String, Sendable, CaseIterable {
    case table, tsv, csv, json, ndjson
}
