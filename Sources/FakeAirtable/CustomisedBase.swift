#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

extension FakeAirtable.Options {
    /// A Project tracker base its owner made their own, as issue 14 found one: "Kickoff date" deleted, "Category"
    /// renamed "Type", a "Status" single select in place of the Complete checkbox, fields of their own (currency,
    /// selects, url, email, checkbox, number, percent, rating, duration, phone, date and time, a formula), and views
    /// with their own filters and order.
    public static var customisedBase: FakeAirtable.Options {
        var options = FakeAirtable.Options()
        options.projectFields = [
            FakeFieldSpec("Name", "singleLineText"),
            FakeFieldSpec("Type", "singleSelect", choices: FakeBase.categories),
            FakeFieldSpec("Status", "singleSelect", choices: ["Todo", "In progress", "Done"]),
            FakeFieldSpec("Due date", "date", options: #"{"dateFormat":{"name":"iso","format":"YYYY-MM-DD"}}"#),
            FakeFieldSpec("Project lead", "singleCollaborator"),
            FakeFieldSpec("Project team", "multipleCollaborators"),
            FakeFieldSpec("Client", "multipleRecordLinks", linkedTable: "Clients"),
            FakeFieldSpec("Notes", "multilineText"),
            FakeFieldSpec("Budget", "currency", options: #"{"precision":2,"symbol":"$"}"#),
            FakeFieldSpec("Priority", "singleSelect", choices: ["High", "Medium", "Low"]),
            FakeFieldSpec("Tags", "multipleSelects", choices: ["web", "print", "video", "social"]),
            FakeFieldSpec("Website", "url"),
            FakeFieldSpec("Owner email", "email"),
            FakeFieldSpec("Reviewed", "checkbox", options: #"{"icon":"check","color":"greenBright"}"#),
            FakeFieldSpec("Estimate", "number", options: #"{"precision":1}"#),
            FakeFieldSpec("Progress", "percent", options: #"{"precision":0}"#),
            FakeFieldSpec("Rating", "rating", options: #"{"max":5,"icon":"star","color":"yellowBright"}"#),
            FakeFieldSpec("Time spent", "duration", options: #"{"durationFormat":"h:mm"}"#),
            FakeFieldSpec("Phone", "phoneNumber"),
            FakeFieldSpec(
                "Launch", "dateTime",
                options:
                    #"{"dateFormat":{"name":"iso","format":"YYYY-MM-DD"},"timeFormat":{"name":"24hour","format":"HH:mm"},"timeZone":"utc"}"#
            ),
            FakeFieldSpec(
                "Days left", "formula",
                options:
                    #"{"isValid":true,"formula":"DATETIME_DIFF({Due date}, TODAY(), 'days')","result":{"type":"number","options":{"precision":0}}}"#,
                formula: "DATETIME_DIFF({Due date}, TODAY(), 'days')"),
            FakeFieldSpec("Project images", "multipleAttachments", options: #"{"isReversed":false}"#),
            FakeFieldSpec("Tasks", "multipleRecordLinks", linkedTable: "Tasks"),
        ]
        options.views = [
            FakeViewSpec("All projects"),
            FakeViewSpec("Active", filter: "{Status} != 'Done'", sort: [("Due date", false)]),
            FakeViewSpec("High priority", filter: "{Priority} = 'High'", sort: [("Budget", true)]),
            FakeViewSpec("Done", type: "kanban", filter: "{Status} = 'Done'"),
        ]
        return options
    }
}

extension FakeAirtable {
    /// The 16 recorded projects as they stand in `Options.customisedBase`: their Category under "Type", Complete as
    /// Status, no kickoff date, and values in the owner's own fields.
    public static var customisedProjects: [[String: Any]] {
        recordedProjects.enumerated().map { index, record in
            var record = record
            var fields = record["fields"] as? [String: Any] ?? [:]
            fields["Type"] = fields.removeValue(forKey: "Category")
            fields["Kickoff date"] = nil
            let complete = fields.removeValue(forKey: "Complete") as? Bool ?? false
            fields["Status"] = complete ? "Done" : index % 3 == 0 ? "Todo" : "In progress"
            fields["Budget"] = Double(1000 + 250 * index) + (index % 2 == 0 ? 0.5 : 0)
            fields["Priority"] = ["High", "Medium", "Low"][index % 3]
            fields["Tags"] = [["web"], ["print", "video"], ["social"], []][index % 4]
            if index % 2 == 0 { fields["Website"] = "https://example.com/project-\(index + 1)" }
            fields["Owner email"] = "owner\(index % 4)@example.com"
            if index % 2 == 1 { fields["Reviewed"] = true }
            fields["Estimate"] = Double(index) + 0.5
            fields["Progress"] = Double(index % 5) / 4
            fields["Rating"] = index % 5 + 1
            fields["Time spent"] = 1800 * (index + 1)
            if index % 4 == 0 { fields["Phone"] = "+1 415 555 01\(zeroPadded(index, 2))" }
            if index % 3 == 1 { fields["Launch"] = "2026-12-0\(index % 9 + 1)T14:30:00.000Z" }
            // Airtable leaves empty cells out of a record.
            for (name, value) in fields where (value as? [Any])?.isEmpty == true { fields[name] = nil }
            record["fields"] = fields
            return record
        }
    }
}
