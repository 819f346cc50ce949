import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// One flag a command accepts; the parser, the help text and shell completion all read these.
package struct FlagSpec: Sendable {
    package var name: String
    package var short: String? = nil
    /// The placeholder for the flag's value, or nil for a switch.
    package var value: String? = nil
    /// The range a whole number must fall in: the parser refuses others and mcp's tool schemas state it.
    package var minimum = 0
    package var maximum = 1_000_000
    package var repeatable = false
    /// The values the flag accepts, when they are a fixed set.
    package var choices: [String] = []
    /// Whether the parser refuses a value outside `choices` (a category is checked against the table instead).
    package var checksChoices = true
    package var help: String
    /// The value's type where the placeholder does not say it (`--estimate DAYS` takes fractions).
    package var declaredType: FlagType? = nil

    /// What the flag's value is, for the tool schemas `tracker mcp` lists: declared, else read off the placeholder.
    package var type: FlagType {
        if let declaredType { return declaredType }
        guard let value else { return .toggle }
        if repeatable { return .list }
        if !choices.isEmpty && checksChoices { return .choice }
        switch value {
        case "N", "DAYS", "SECONDS": return .whole
        case "DATE": return .date
        default: return .text
        }
    }
    /// Each stored value given.
    package init(
        name: String, short: String? = nil, value: String? = nil, minimum: Int = 0, maximum: Int = 1_000_000,
        repeatable: Bool = false, choices: [String] = [], checksChoices: Bool = true, help: String,
        declaredType: FlagType? = nil
    ) {
        self.name = name
        self.short = short
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.repeatable = repeatable
        self.choices = choices
        self.checksChoices = checksChoices
        self.help = help
        self.declaredType = declaredType
    }
}

/// The kinds of value a flag takes, as a JSON Schema needs them.
package enum FlagType: Equatable, Sendable {
    /// A switch: present or not.
    case toggle
    case text
    /// A whole number, zero or more.
    case whole
    /// A number that may have a fraction.
    case number
    /// A number, or a text that says its unit (`--estimate`: 1.5, `2d`, `1w`): a JSON number or string.
    case quantity
    /// A date in any form `DateInput` reads.
    case date
    /// One of `choices`.
    case choice
    /// A repeatable flag: several texts.
    case list
}

/// What a command's positional words are, for shell completion.
package enum ArgumentKind: Sendable {
    case none
    /// Projects by name, from the names file.
    case projects
    /// tracker's own subcommands (`help`).
    case commands
    /// The shells completion scripts exist for.
    case shells
    /// `task`'s verbs, then projects after `add` and tasks by name after the others.
    case taskVerbs
    /// A project, then files (`attach`); only files after `--client NAME`.
    case projectThenFiles
    /// A project, then a directory (`files PROJECT --download DIR`).
    case projectThenDirectory
}

/// What a command is, beyond its words: said on its spec, where its flags and help are, so no list elsewhere names it.
package struct CommandFacts: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// It never talks to Airtable (help, completion scripts, the version, the demo's own start).
    package static let sendsNothing = CommandFacts(rawValue: 1 << 0)
    /// It only reads, and may answer from the team's copy (`--max-age`, `"maxAge"`).
    package static let readsTeamCopy = CommandFacts(rawValue: 1 << 1)
    /// It draws before libcurl loads, and starts the loading itself once it has drawn (the board).
    package static let drawsBeforeLoadingTransport = CommandFacts(rawValue: 1 << 2)
    /// It is a face that stays open (board, mcp, serve): its requests are counted under its own name.
    package static let staysOpen = CommandFacts(rawValue: 1 << 3)
}

/// A subcommand's words: its flags, its positional argument and its help text.
package struct CommandSpec: Sendable {
    package var name: String
    /// What the command is beyond its words (it sends nothing; it may read the team's copy; it draws first).
    package var facts: CommandFacts = []
    package var summary: String
    package var usage: [String]
    package var positional: String? = nil
    /// What TAB offers for the positional words.
    package var arguments = ArgumentKind.none
    package var flags: [FlagSpec]
    package var examples: [String]
    package var notes: [String] = []

    /// Whether the command talks to Airtable (everything but help, completion scripts and the version).
    package var usesNetwork: Bool { !facts.contains(.sendsNothing) }
    /// Whether libcurl starts loading as the command starts. Not for the board, which draws first: loading libcurl and
    /// the ~30 libraries behind it holds the loader's lock, which the runtime's first threads wait on, so boards opened
    /// together drew their first frame late (the benchmark's boards row); the board loads it after that frame.
    package var loadsTransportAtStart: Bool { usesNetwork && !facts.contains(.drawsBeforeLoadingTransport) }

    package func flag(named name: String) -> FlagSpec? {
        flags.first { $0.name == name || $0.short == name }
    }
    /// Each stored value given.
    package init(
        name: String, facts: CommandFacts = [], summary: String, usage: [String], positional: String? = nil,
        arguments: ArgumentKind = ArgumentKind.none, flags: [FlagSpec], examples: [String], notes: [String] = []
    ) {
        self.name = name
        self.facts = facts
        self.summary = summary
        self.usage = usage
        self.positional = positional
        self.arguments = arguments
        self.flags = flags
        self.examples = examples
        self.notes = notes
    }
}

extension CommandSpec {
    /// Options every command accepts, before or after the subcommand.
    package static let globalFlags: [FlagSpec] = [
        FlagSpec(name: "--secrets", value: "PATH", help: "read this secrets file instead of looking for Secrets.json"),
        FlagSpec(name: "--profile", value: "NAME", help: "use this profile of the secrets file (or TRACKER_PROFILE)"),
        FlagSpec(name: "--timeout", value: "SECONDS", help: "give up on a request after this long (default 30)"),
        FlagSpec(name: "--verbose", help: "print one line per HTTP request on stderr (never the token)"),
        FlagSpec(
            name: "--max-age", value: "SECONDS",
            help: "a read command answers from the team's copy when it was refreshed within SECONDS (or \"maxAge\")"),
        FlagSpec(
            name: "--color", value: "WHEN", choices: ColorChoice.allCases.map(\.rawValue),
            help: "colour output: auto (on a terminal, unless NO_COLOR), always or never"),
        FlagSpec(name: "--help", short: "-h", help: "show help for the command"),
    ]

    /// The global flags as help shows them, `--max-age` naming the commands among `specs` that read the team's copy
    /// (each says so in its facts: no list written by hand).
    package static func globalFlags(describing specs: [CommandSpec]) -> [FlagSpec] {
        let readers = specs.filter { $0.facts.contains(.readsTeamCopy) }.map(\.name).joined(separator: ", ")
        return globalFlags.map { flag in
            guard flag.name == "--max-age" else { return flag }
            var named = flag
            named.help =
                "\(readers): answer from the team's copy when it was refreshed within SECONDS (or \"maxAge\")"
            return named
        }
    }

    /// The flags of a project's fields, shared by `add` and `update`.
    package static let fieldFlags: [FlagSpec] = [
        FlagSpec(name: "--name", value: "NAME", help: "the project's name"),
        FlagSpec(name: "--due", value: "DATE", help: "the due date: 2026-12-01, today, friday, +2w…"),
        FlagSpec(name: "--kickoff", value: "DATE", help: "the kickoff date"),
        FlagSpec(
            name: "--category", value: "NAME", choices: categoryChoices, checksChoices: false,
            help: "one of the table's categories, in any case, e.g. \"brand identity\""),
        FlagSpec(name: "--lead", value: "EMAIL", help: "the project lead: an email, or a collaborator's name"),
        FlagSpec(name: "--team", value: "EMAIL", repeatable: true, help: "a team member (repeat for more)"),
        FlagSpec(
            name: "--client", value: "NAME|ID", repeatable: true, help: "a client, by name or record id (repeatable)"),
        FlagSpec(name: "--notes", value: "TEXT", help: "notes for the project"),
        FlagSpec(name: "--notes-file", value: "PATH", help: "read the notes from a file, or from stdin with -"),
        FlagSpec(
            name: "--set", value: "FIELD=VALUE", repeatable: true,
            help: "set one of the base's fields, checked by its type, e.g. Budget=1200 (repeatable)"),
    ]

    /// `--dry-run`, `--json` and `-q`, which every write command has.
    package static let writeFlags: [FlagSpec] = [
        FlagSpec(name: "--dry-run", help: "print the requests (method, path, JSON body) and send nothing"),
        FlagSpec(name: "--json", help: "print the project objects as JSON instead of ids"),
        FlagSpec(name: "--quiet", short: "-q", help: "print nothing on success"),
    ]

    package static let categoryChoices = [
        "Brand identity", "Industrial design", "Healthcare design", "Technology design",
    ]

    /// tracker's words `update --clear` can empty (any field of the base can be named too).
    package static let clearable: [FieldMap.Word] = [.kickoff, .lead, .team, .client, .notes, .category, .due]

    package static let dateNote =
        "DATE is 2026-12-01 (or 2026-12-1), today, tomorrow, yesterday, a weekday (the next one), +3d, +2w or -1d."

    package static let namingNote =
        "A project is named by its id, its exact name, or a name that matches ignoring case when only one does."
}
