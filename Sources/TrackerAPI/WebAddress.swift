/// Where a person opens things on airtable.com (docs/airtable.md "Addresses people open").
public enum WebAddress {
    /// `https://airtable.com/{baseId}/{tableId}/{recordId}`: the record, expanded, for anyone with access to the base.
    public static func record(baseID: String, tableID: String, recordID: String) -> String {
        "https://airtable.com/\(baseID)/\(tableID)/\(recordID)"
    }

    /// `https://airtable.com/{baseId}`: the base, when the table's id is not known.
    public static func base(_ baseID: String) -> String { "https://airtable.com/\(baseID)" }
}
