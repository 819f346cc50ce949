/// One flag a command accepts; the parser, the help text and shell completion all read these.
struct FlagSpec: Sendable {
    var name: String
    var short: String? = nil
    /// The placeholder for the flag's value, or nil for a switch.
    var value: String? = nil
    var repeatable = false
    /// The values the flag accepts, when they are a fixed set.
    var choices: [String] = []
    var help: String
}

/// A subcommand's words: its flags, its positional argument and its help text.
struct CommandSpec: Sendable {
    var name: String
    var summary: String
    var usage: [String]
    var positional: String? = nil
    var flags: [FlagSpec]
    var examples: [String]
    var notes: [String] = []

    func flag(named name: String) -> FlagSpec? {
        flags.first { $0.name == name || $0.short == name }
    }
}

extension CommandSpec {
    /// Options every command accepts, before or after the subcommand.
    static let globalFlags: [FlagSpec] = [
        FlagSpec(name: "--secrets", value: "PATH", help: "read this secrets file instead of looking for Secrets.json"),
        FlagSpec(name: "--timeout", value: "SECONDS", help: "give up on a request after this long (default 30)"),
        FlagSpec(name: "--verbose", help: "print one line per HTTP request on stderr (never the token)"),
        FlagSpec(
            name: "--color", value: "WHEN", choices: ColorChoice.allCases.map(\.rawValue),
            help: "colour output: auto (on a terminal, unless NO_COLOR), always or never"),
        FlagSpec(name: "--help", short: "-h", help: "show help for the command"),
    ]

    static let list = CommandSpec(
        name: "list", summary: "List projects: what is due, overdue and done.",
        usage: [
            "tracker list [--overdue] [--due-before DATE] [--due-within DAYS] [--complete | --incomplete]",
            "             [--category NAME] [--lead NAME|EMAIL] [--search TEXT] [--sort FIELD [--desc]] [--limit N]",
            "             [--format table|tsv|csv|json|ndjson] [--json]",
        ],
        flags: [
            FlagSpec(name: "--overdue", help: "only projects due before today and not complete"),
            FlagSpec(name: "--due-before", value: "YYYY-MM-DD", help: "only projects due before this date"),
            FlagSpec(name: "--due-within", value: "DAYS", help: "only projects due from today to DAYS days from now"),
            FlagSpec(name: "--complete", help: "only complete projects"),
            FlagSpec(name: "--incomplete", help: "only projects not yet complete"),
            FlagSpec(
                name: "--category", value: "NAME",
                choices: ["Brand identity", "Industrial design", "Healthcare design", "Technology design"],
                help: "only this category, e.g. \"Brand identity\""),
            FlagSpec(name: "--lead", value: "NAME|EMAIL", help: "only projects this person leads"),
            FlagSpec(
                name: "--search", value: "TEXT", help: "only projects whose name or notes contain TEXT (any case)"),
            FlagSpec(
                name: "--sort", value: "FIELD", choices: SortField.allCases.map(\.rawValue),
                help: "order by due, name, kickoff or category (done by Airtable)"),
            FlagSpec(name: "--desc", help: "with --sort: largest first"),
            FlagSpec(name: "--limit", value: "N", help: "at most N projects"),
            FlagSpec(
                name: "--format", value: "FORMAT", choices: ListFormat.allCases.map(\.rawValue),
                help: "table on a terminal, tsv when piped; or csv, json, ndjson"),
            FlagSpec(name: "--json", help: "the same as --format json: one JSON array of project objects"),
        ],
        examples: [
            "tracker list", "tracker list --overdue", "tracker list --due-within 7 --incomplete --sort due",
            "tracker list --search logo --category \"Brand identity\" --format csv > logos.csv",
            "tracker list --json | jq '.[] | select(.status == \"overdue\") | .name'",
        ],
        notes: [
            "Filters combine with AND and run on Airtable, so only matching projects are sent.",
            "Piped output is tab-separated, one project a line, no header:",
            "  id  name  due  status  category  lead-name",
        ])

    static let add = CommandSpec(
        name: "add", summary: "Create a project and print its id.",
        usage: [
            "tracker add --name NAME --due YYYY-MM-DD [--kickoff YYYY-MM-DD] [--category NAME]",
            "            [--lead EMAIL] [--team EMAIL]... [--client NAME|ID]...",
            "            [--notes TEXT | --notes-file PATH|-] [--complete] [--if-absent] [--dry-run] [--json] [-q]",
        ],
        flags: [
            FlagSpec(name: "--name", value: "NAME", help: "the project's name (required)"),
            FlagSpec(name: "--due", value: "YYYY-MM-DD", help: "the due date (required)"),
            FlagSpec(name: "--kickoff", value: "YYYY-MM-DD", help: "the kickoff date"),
            FlagSpec(
                name: "--category", value: "NAME",
                choices: ["Brand identity", "Industrial design", "Healthcare design", "Technology design"],
                help: "the category, e.g. \"Brand identity\""),
            FlagSpec(name: "--lead", value: "EMAIL", help: "the project lead, by the email of a base collaborator"),
            FlagSpec(name: "--team", value: "EMAIL", repeatable: true, help: "a team member's email (repeat for more)"),
            FlagSpec(
                name: "--client", value: "NAME|ID", repeatable: true,
                help: "a client, by record id or name (repeatable)"),
            FlagSpec(name: "--notes", value: "TEXT", help: "notes for the project"),
            FlagSpec(name: "--notes-file", value: "PATH", help: "read the notes from a file, or from stdin with -"),
            FlagSpec(name: "--complete", help: "mark the project complete"),
            FlagSpec(
                name: "--if-absent", help: "if a project with exactly this name exists, print its id and create nothing"
            ),
            FlagSpec(name: "--dry-run", help: "print the JSON request body and send nothing"),
            FlagSpec(name: "--json", help: "print the whole new project as JSON instead of its id"),
            FlagSpec(name: "--quiet", short: "-q", help: "print nothing on success"),
        ],
        examples: [
            "tracker add --name \"Spring campaign\" --due 2026-12-01",
            "id=$(tracker add --name \"Logo refresh\" --due 2026-12-15 --category \"Brand identity\" --lead ana@example.com)",
            "make-notes | tracker add --name \"Q1 audit\" --due 2027-01-31 --notes-file -",
            "tracker add -q --if-absent --name \"Weekly review\" --due 2026-11-27    # safe to repeat from cron",
        ])

    static let show = CommandSpec(
        name: "show", summary: "Show every field of one project, by id or exact name.",
        usage: ["tracker show ID|NAME [--json]"], positional: "ID|NAME",
        flags: [FlagSpec(name: "--json", help: "print the project object as JSON")],
        examples: [
            "tracker show rec3g0Xxmw2rw3scs", "tracker show \"CMCA brand identity\"", "tracker show \"$id\" --json",
        ])

    static let doctor = CommandSpec(
        name: "doctor", summary: "Check the configuration, the token, and the table's fields.",
        usage: ["tracker doctor"], flags: [],
        examples: ["tracker doctor", "AIRTABLE_TOKEN=pat… tracker doctor"],
        notes: ["Exits with the code of the first failing check, as any command would."])

    static let completion = CommandSpec(
        name: "completion", summary: "Print a shell completion script (bash, zsh or fish).",
        usage: ["tracker completion bash|zsh|fish"], positional: "SHELL", flags: [],
        examples: [
            "eval \"$(tracker completion bash)\"                       # in ~/.bashrc",
            "tracker completion zsh > \"${fpath[1]}/_tracker\"          # then: autoload -U compinit && compinit",
            "tracker completion fish > ~/.config/fish/completions/tracker.fish",
        ])

    static let help = CommandSpec(
        name: "help", summary: "Show help for tracker or one of its commands.", usage: ["tracker help [COMMAND]"],
        positional: "COMMAND", flags: [], examples: ["tracker help add"])

    /// The subcommands, in the order help lists them.
    static let all: [CommandSpec] = [list, add, show, doctor, completion, help]

    static func named(_ name: String) -> CommandSpec? { all.first { $0.name == name } }
}
