import Foundation

/// The field types tracker reads, as the schema API names them.
private let expectedTypes: [(String, Set<String>)] = [
    (ProjectField.name, ["singleLineText", "multilineText", "formula"]), (ProjectField.category, ["singleSelect"]),
    (ProjectField.complete, ["checkbox"]), (ProjectField.kickoff, ["date"]), (ProjectField.due, ["date"]),
    (ProjectField.lead, ["singleCollaborator"]), (ProjectField.team, ["multipleCollaborators"]),
    (ProjectField.client, ["multipleRecordLinks"]),
    (ProjectField.notes, ["multilineText", "richText", "singleLineText"]),
]

extension Runner {
    /// `tracker doctor`: prints each check as it runs, and fails with the first failing check's exit code.
    func doctor() async throws {
        let configuration = try loadConfiguration()
        func line(_ label: String, _ value: String) throws {
            try output.standardOutput(label.padding(toLength: 10, withPad: " ", startingAt: 0) + value + "\n")
        }
        if let path = configuration.secretsPath {
            try line("secrets", "\(path) (mode \(configuration.secretsMode.map { String($0, radix: 8) } ?? "?"))")
        } else {
            try line("secrets", "none; everything comes from the environment")
        }
        let tokenSource =
            configuration.environmentKeys.contains("AIRTABLE_TOKEN") ? "AIRTABLE_TOKEN" : "the secrets file"
        try line("token", "\(configuration.maskedToken) (from \(tokenSource))")
        try line("endpoint", configuration.endpoint.absoluteString)
        try line("base", "\(configuration.baseID), table \"\(configuration.table)\"")

        let client = makeClient(configuration: configuration)
        let user = try await client.whoami().get()
        try line("ok", "token accepted (user \(user))")
        try await client.probeTable().get()
        try line("ok", "base and table reachable")
        switch try await client.fieldTypes().get() {
        case nil:
            try line("skipped", "field check: the token lacks schema.bases:read")
        case let types?:
            let missing = expectedTypes.filter { types[$0.0] == nil }.map(\.0)
            let odd = expectedTypes.filter { name, allowed in types[name].map { !allowed.contains($0) } ?? false }
            if missing.isEmpty && odd.isEmpty {
                try line("ok", "all \(expectedTypes.count) fields tracker reads exist")
            }
            if !missing.isEmpty {
                try line("warning", "missing fields: \(missing.joined(separator: ", ")) (shown as empty)")
            }
            for (name, _) in odd {
                try line("warning", "field \"\(name)\" is a \(types[name] ?? "?"), not what tracker expects")
            }
        }
        if let path = configuration.secretsPath, configuration.isSecretsFileReadableByOthers {
            try line("warning", String(ConfigurationLoader.readableWarning(path).dropFirst("warning: ".count)))
        }
    }
}
