import Foundation

extension Runner {
    /// `tracker show`: one project, by id or name, as a human view or as JSON.
    func show(_ options: ShowOptions) async throws {
        let base = try await prepareBase()
        let project = try await ProjectNaming(client: base.client).resolve(options.target)
        if options.json {
            try output.standardOutput(project.json(today: today).serialized() + "\n")
            return
        }
        let names = await linkedNames(of: project, base: base)
        let formatter = FieldFormatter(table: base.layout.table, timeZone: context.timeZone, recordNames: names)
        // The base's own fields in the table's order (every one, empty or not), else as the record has them.
        let values = Dictionary(project.otherFields.map { ($0.name, $0.value) }) { first, _ in first }
        let names_ =
            base.layout.table?.fields.map(\.name).filter { !base.layout.fields.isTrackerField($0) }
            ?? project.otherFields.map(\.name)
        let others = names_.map { ($0, formatter.text(values[$0], field: $0)) }
        let width = output.isStdoutTerminal ? output.terminalWidth : nil
        let view = ProjectView(today: today, style: style, width: width, timeZone: context.timeZone)
        try output.standardOutput(
            view.render(project, clientNames: names, otherFields: others, absent: Set(base.layout.fields.absent)))
    }

    /// Names for the records `project` links to: remembered ones, and the rest read now, one request a linked table,
    /// all at once; ids stay ids where that fails.
    private func linkedNames(of project: Project, base: Base) async -> [String: String] {
        var wanted: [String: (primary: String, ids: [String])] = [:]
        let checker = try? await valueChecker(base, command: "show")
        if !project.clients.isEmpty, let target = try? checker?.linkTarget(for: .client) {
            wanted[target.table] = (target.primaryField, project.clients)
        }
        for field in project.otherFields {
            guard let schema = base.layout.table?.field(named: field.name), schema.type == "multipleRecordLinks",
                let linked = schema.linkedTableID.flatMap({ base.layout.schema?.table($0) }),
                let primary = linked.primaryField
            else { continue }
            let ids = field.value.arrayValue?.compactMap(\.stringValue) ?? []
            wanted[linked.id, default: (primary.name, [])].ids += ids
        }
        var names: [String: String] = [:]
        var missing: [(table: String, primary: String, ids: [String])] = []
        for (table, request) in wanted {
            let known = base.knowledge.recordNames(in: table)
            for id in request.ids { if let name = known[id] { names[id] = name } }
            let unknown = Array(Set(request.ids.filter { known[$0] == nil })).sorted()
            if !unknown.isEmpty { missing.append((table, request.primary, unknown)) }
        }
        let client = base.client
        let found = await withTaskGroup(of: (String, [LinkedRecord]).self) { group in
            for (table, primary, ids) in missing {
                group.addTask {
                    let records = await client.linkedRecords(
                        in: table, primaryField: primary, matching: Formula.any(ids.map(Formula.recordID(is:))))
                    return (table, (try? records.get()) ?? [])
                }
            }
            var all: [(String, [LinkedRecord])] = []
            for await result in group { all.append(result) }
            return all
        }
        for (table, records) in found {
            base.knowledge.remember(records: records, in: table)
            for record in records { if let name = record.name { names[record.id] = name } }
        }
        return names
    }
}
