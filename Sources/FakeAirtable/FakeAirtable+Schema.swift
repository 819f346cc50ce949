#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Changes to the projects table's schema made "in Airtable" while a test runs, as a base's owner makes them.
extension FakeAirtable {
    /// Adds a choice to a single or multiple select.
    public func addChoice(_ choice: String, toField name: String) {
        editField(name) { $0.choices.append(choice) }
    }

    /// Removes a choice from a select; cells holding it lose it, as in Airtable.
    public func removeChoice(_ choice: String, fromField name: String) {
        editField(name) { $0.choices.removeAll { $0 == choice } }
        editRecords { fields in
            if fields[name] as? String == choice { fields[name] = nil }
            if let list = fields[name] as? [String] { fields[name] = list.filter { $0 != choice } }
        }
    }

    /// Renames a field, keeping its values.
    public func renameField(_ name: String, to newName: String) {
        editField(name) { $0.name = newName }
        editRecords { fields in
            if let value = fields.removeValue(forKey: name) { fields[newName] = value }
        }
    }

    /// Turns a field into a formula computing `formula`; its stored values are gone.
    public func makeFormula(_ name: String, formula: String) {
        editField(name) { field in
            field.type = "formula"
            field.formula = formula
            field.options = ["isValid": true, "formula": formula, "result": ["type": "number"]]
        }
        editRecords { $0[name] = nil }
    }

    /// Deletes a saved view.
    public func removeView(_ name: String) {
        locked { base.tables[0].views.removeAll { $0.name == name } }
    }

    private func editField(_ name: String, _ change: (inout FakeField) -> Void) {
        locked {
            guard let index = base.tables[0].fields.firstIndex(where: { $0.name == name }) else { return }
            change(&base.tables[0].fields[index])
        }
    }

    private func editRecords(_ change: (inout [String: Any]) -> Void) {
        locked {
            for var record in base.tables[0].records {
                change(&record.fields)
                base.tables[0].replace(record)
            }
        }
    }
}
