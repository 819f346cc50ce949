import TrackerModel
import TrackerOperations
/// The help pages, built from the same specs the parser uses so they cannot drift apart; every line fits 80 columns.
enum HelpPage {
    static let width = 80

    static func page(for topic: String?) -> String {
        guard let topic, let spec = CommandRegistry.spec(named: topic) else { return root }
        var text =
            "\(spec.summary)\n\nUSAGE\n" + synopses(spec).flatMap { usageLines($0) }.map { "  \($0)\n" }.joined()
        text += "\nFLAGS\n" + (spec.flags.isEmpty ? "  (only the global flags below)\n" : flagLines(spec.flags))
        text += "\nGLOBAL FLAGS\n" + flagLines(CommandSpec.globalFlags(describing: CommandRegistry.specs))
        if !spec.notes.isEmpty {
            text += "\n" + TextCells.wrap(spec.notes.joined(separator: " "), to: width).map { "\($0)\n" }.joined()
        }
        text += "\nEXAMPLES\n" + spec.examples.map { "  $ \($0)\n" }.joined()
        return text
    }

    /// A flag a line: the flag and its value, then its description wrapped under itself.
    static func flagLines(_ flags: [FlagSpec]) -> String {
        let labels = flags.map(label)
        let column = min((labels.map(\.count).max() ?? 0) + 4, 28)
        return zip(flags, labels).map { flag, label in
            let lines = TextCells.wrap(flag.help, to: width - column)
            let first = label.count + 2 < column ? "  " + label.padded(to: column - 2) + lines[0] : "  " + label
            let rest = (label.count + 2 < column ? lines.dropFirst() : lines[...]).map {
                String(repeating: " ", count: column) + $0
            }
            return ([first] + rest).map { $0 + "\n" }.joined()
        }.joined()
    }

    static func label(_ flag: FlagSpec) -> String {
        [flag.short, flag.name].compactMap { $0 }.joined(separator: ", ") + (flag.value.map { " \($0)" } ?? "")
    }

    /// A command's usage as one line: its spec writes it on several, as continuations.
    static func usage(_ spec: CommandSpec) -> String {
        spec.usage.map { $0.trimmingWhitespace() }.joined(separator: " ")
    }

    /// A command's usage as one line a form: a spec line that starts with `tracker ` begins another form (`task`'s
    /// verbs), the others continue the one before.
    static func synopses(_ spec: CommandSpec) -> [String] {
        var forms: [String] = []
        for line in spec.usage.map({ $0.trimmingWhitespace() }) {
            if line.hasPrefix("tracker ") || forms.isEmpty {
                forms.append(line)
            } else {
                forms[forms.count - 1] += " " + line
            }
        }
        return forms
    }

    /// A usage line broken between its bracketed groups to fit `width` with its two-space indent, continued under
    /// the first argument.
    static func usageLines(_ line: String, width: Int = HelpPage.width) -> [String] {
        guard line.count > width - 2 else { return [line] }
        var groups: [String] = []
        var current = ""
        var depth = 0
        for character in line {
            if character == " " && depth == 0 {
                if !current.isEmpty { groups.append(current) }
                current = ""
                continue
            }
            if character == "[" { depth += 1 }
            if character == "]" { depth -= 1 }
            current.append(character)
        }
        if !current.isEmpty { groups.append(current) }
        let indent = String(repeating: " ", count: min(groups.prefix(2).joined(separator: " ").count + 1, 16))
        var lines: [String] = []
        var text = ""
        for group in groups {
            if !text.isEmpty && text.count + 1 + group.count > width - 2 {
                lines.append(text)
                text = indent + group
            } else {
                text += (text.isEmpty ? "" : " ") + group
            }
        }
        return lines + [text]
    }

    static var root: String {
        let nameWidth = (CommandRegistry.specs.map(\.name.count).max() ?? 0) + 2
        let commands = CommandRegistry.specs.map { spec in
            TextCells.wrap(spec.summary, to: width - 2 - nameWidth).enumerated().map { index, line in
                "  " + (index == 0 ? spec.name : "").padded(to: nameWidth) + line
            }.joined(separator: "\n")
        }.joined(separator: "\n")
        return """
            tracker: your Airtable "Project tracker" projects, from the command line.

            USAGE
              tracker <command> [flags]

            COMMANDS
            \(commands)

            GLOBAL FLAGS
            \(flagLines(CommandSpec.globalFlags(describing: CommandRegistry.specs) + [FlagSpec(name: "--version", help: "print tracker's version")]))
            CONFIGURATION
              'tracker init' writes ~/.config/tracker/Secrets.json. The token, base id and
              table come from the first of: --secrets PATH, $TRACKER_SECRETS,
              ./Secrets.json, $XDG_CONFIG_HOME/tracker/Secrets.json (else
              ~/.config/tracker/Secrets.json). AIRTABLE_TOKEN, AIRTABLE_BASE_ID,
              AIRTABLE_TABLE (default "Design projects") and AIRTABLE_ENDPOINT_URL
              override single keys. Several machines share the request budget and
              the write locks through a team's Redis: "redis" in the file (tracker
              init --redis URL) or TRACKER_REDIS_URL; an empty TRACKER_REDIS_URL=
              runs one command on this machine alone.

            EXIT STATUS
              0   success                   69  Airtable or the network failing
              1   anything else             75  retry later (rate limit, timeout, unknown
              64  usage                         outcome of a write)
              65  data rejected (422)       77  token or permission
              66  not found                 78  configuration
                                            130 interrupted

            EXAMPLES
              $ tracker init
              $ tracker list
              $ tracker add --name "Spring campaign" --due friday
              $ tracker show "Spring campaign" --json

            Run 'tracker help <command>' for a command's flags and examples,
            and 'tracker help --man' for the manual page.

            """
    }
}

extension String {
    fileprivate func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
