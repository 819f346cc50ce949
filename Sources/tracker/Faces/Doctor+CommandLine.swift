import TrackerModel
import TrackerOperations

extension Doctor: Command {
    /// The settings in use first (the human view), then every check as a line with its notes, or `--json`'s one
    /// object; it fails with the first failing check's exit code.
    func run(_ runner: Runner) async throws {
        let options = self
        func line(_ label: String, _ value: String) throws {
            // Names from the base (fields, views, the table) are shown with their control characters made visible.
            try runner.output.standardOutput(TextCells.fit(label, 10) + StandardErrorText.safe(value) + "\n")
        }
        // Read once: the settings are said before the checks go out (they may take a while), and the checks are
        // given this same reading, whose failure is their first finding.
        let loaded = Result { try runner.loadConfiguration() }
        if !options.json, case .success(let configuration) = loaded { try Doctor.describeSettings(configuration, line) }
        var setup = runner.setup
        setup.configuration = { try loaded.get() }
        let report = try await runner.perform(options, in: setup)
        if options.json {
            try runner.output.standardOutput(report.json.serialized() + "\n")
        } else {
            // The lines above already show the configuration; JSON has no such lines, so it gets the check.
            for check in report.checks where !(check.name == "configuration" && check.ok) {
                try line(check.label, check.detail)
                for note in check.notes { try line("", note) }
            }
        }
        if let failure = report.firstFailure { throw failure }
    }
}

extension Doctor {
    /// Which settings are in use: the file, the masked token and where it came from, the endpoint, base and table.
    static func describeSettings(_ configuration: Configuration, _ line: (String, String) throws -> Void) throws {
        if let path = configuration.secretsPath {
            try line("secrets", "\(path) (mode \(configuration.secretsMode.map { String($0, radix: 8) } ?? "?"))")
        } else {
            try line("secrets", "none; everything comes from the environment")
        }
        if let profile = Doctor.profileLine(configuration) { try line("profile", profile) }
        try line("token", "\(configuration.maskedToken) (from \(configuration.tokenOrigin))")
        try line("endpoint", configuration.endpoint.absoluteString)
        try line("base", "\(configuration.baseID), table \"\(configuration.table)\"")
        let settings = configuration.fieldSettings
        if !settings.isTemplate {
            var said = FieldMap.Word.allCases.compactMap { word -> String? in
                switch settings.words[word] {
                case .named(let name)?: "\(word.rawValue) = \"\(name)\""
                case .absent?: "\(word.rawValue) = none"
                case nil: nil
                }
            }
            if let select = settings.completionSelect {
                said.append(
                    "complete = \"\(select.field)\" is \"\(select.done)\""
                        + (select.open.map { ", reopen sets \"\($0)\"" } ?? ""))
            }
            try line("fields", said.joined(separator: ", "))
        }
    }
}
