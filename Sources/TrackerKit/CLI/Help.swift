/// The help pages, built from the same specs the parser uses so they cannot drift apart.
enum Help {
    static func page(for topic: String?) -> String {
        guard let topic, let spec = CommandSpec.named(topic) else { return root }
        var text = "\(spec.summary)\n\nUSAGE\n" + spec.usage.map { "  \($0)\n" }.joined()
        text += "\nFLAGS\n" + (spec.flags.isEmpty ? "  (only the global flags below)\n" : flagLines(spec.flags))
        text += "\nGLOBAL FLAGS\n" + flagLines(CommandSpec.globalFlags)
        if !spec.notes.isEmpty { text += "\n" + spec.notes.map { "\($0)\n" }.joined() }
        text += "\nEXAMPLES\n" + spec.examples.map { "  $ \($0)\n" }.joined()
        return text
    }

    private static func flagLines(_ flags: [FlagSpec]) -> String {
        let labels = flags.map { flag in
            [flag.short, flag.name].compactMap { $0 }.joined(separator: ", ") + (flag.value.map { " \($0)" } ?? "")
        }
        let width = (labels.map(\.count).max() ?? 0) + 3
        return zip(flags, labels).map { flag, label in
            "  " + label + String(repeating: " ", count: width - label.count) + flag.help + "\n"
        }.joined()
    }

    static let root = """
        tracker: the projects of an Airtable "Project tracker" base, from the command line.

        USAGE
          tracker <command> [flags]

        COMMANDS
        \(CommandSpec.all.map { "  " + $0.name.padded(to: 8) + $0.summary }.joined(separator: "\n"))

        GLOBAL FLAGS
        \(flagLines(CommandSpec.globalFlags))  --version           print tracker's version

        CONFIGURATION
          The token, base id and table come from the first of: --secrets PATH, $TRACKER_SECRETS,
          ./Secrets.json, $XDG_CONFIG_HOME/tracker/Secrets.json (else ~/.config/tracker/Secrets.json).
          AIRTABLE_TOKEN, AIRTABLE_BASE_ID, AIRTABLE_TABLE and AIRTABLE_ENDPOINT_URL override single keys.

        EXIT STATUS
          0 success    64 usage     65 data rejected (422)   66 not found          69 Airtable/network failing
          75 retry later (rate limit, timeout, unknown outcome)   77 token or permission   78 configuration
          130 interrupted    1 anything else

        EXAMPLES
          $ tracker list
          $ tracker add --name "Spring campaign" --due 2026-12-01
          $ tracker show "Spring campaign" --json

        Run 'tracker help <command>' for a command's flags.

        """
}

extension String {
    fileprivate func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
