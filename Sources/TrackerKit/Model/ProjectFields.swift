/// The Airtable field names of the "Design projects" table, in one place.
public enum ProjectField {
    public static let name = "Name"
    public static let category = "Category"
    public static let complete = "Complete"
    public static let kickoff = "Kickoff date"
    public static let due = "Due date"
    public static let lead = "Project lead"
    public static let team = "Project team"
    public static let client = "Client"
    public static let notes = "Notes"

    /// Every field tracker reads, in the order it shows them.
    public static let all = [name, category, complete, kickoff, due, lead, team, client, notes]
}
