import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// One flag a command accepts; the parser, the help text and shell completion all read these.
struct FlagSpec: Sendable {
    var name: String
    var short: String? = nil
    /// The placeholder for the flag's value, or nil for a switch.
    var value: String? = nil
    var repeatable = false
    /// The values the flag accepts, when they are a fixed set.
    var choices: [String] = []
    /// Whether the parser refuses a value outside `choices` (a category is checked against the table instead).
    var checksChoices = true
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
        FlagSpec(name: "--profile", value: "NAME", help: "use this profile of the secrets file (or TRACKER_PROFILE)"),
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
            "             [--category NAME] [--lead NAME|EMAIL] [--search TEXT] [--view NAME]",
            "             [--sort FIELD [--desc]] [--limit N] [--format table|tsv|csv|json|ndjson] [--json]",
            "             [--columns COL[,COL]...]",
        ],
        flags: [
            FlagSpec(name: "--overdue", help: "only projects due before today and not complete"),
            FlagSpec(name: "--due-before", value: "DATE", help: "only projects due before this date (friday, +2w…)"),
            FlagSpec(name: "--due-within", value: "DAYS", help: "only projects due from today to DAYS days from now"),
            FlagSpec(name: "--complete", help: "only complete projects"),
            FlagSpec(name: "--incomplete", help: "only projects not yet complete"),
            FlagSpec(
                name: "--category", value: "NAME", choices: categoryChoices, checksChoices: false,
                help: "only this category, e.g. \"Brand identity\""),
            FlagSpec(name: "--lead", value: "NAME|EMAIL", help: "only projects this person leads"),
            FlagSpec(
                name: "--search", value: "TEXT", help: "only projects whose name or notes contain TEXT (any case)"),
            FlagSpec(
                name: "--view", value: "NAME",
                help: "only the projects of this saved view, in its order; the other filters narrow it further"),
            FlagSpec(
                name: "--sort", value: "FIELD", choices: SortField.allCases.map(\.rawValue), checksChoices: false,
                help: "order by due, name, kickoff, category or any field of the base (done by Airtable)"),
            FlagSpec(name: "--desc", help: "with --sort: largest first"),
            FlagSpec(name: "--limit", value: "N", help: "at most N projects"),
            FlagSpec(
                name: "--format", value: "FORMAT", choices: ListFormat.allCases.map(\.rawValue),
                help: "table on a terminal, tsv when piped; or csv, json, ndjson"),
            FlagSpec(name: "--json", help: "the same as --format json: one JSON array of project objects"),
            FlagSpec(
                name: "--columns", value: "COLS", choices: ListColumn.standard.map(\.rawValue), checksChoices: false,
                help: "the table, TSV and CSV columns, in order, e.g. name,due,lead-email,Budget"),
        ],
        examples: [
            "tracker list", "tracker list --overdue", "tracker list --due-within 7 --incomplete --sort due",
            "tracker list --search logo --format csv > logos.csv",
            "tracker list --json | jq '.[] | select(.status == \"overdue\") | .name'",
            "tracker list --view \"Active\" --sort Budget --desc --columns name,due,Budget",
        ],
        notes: [
            "Filters combine with AND and run on Airtable, so only matching projects are sent. Piped output is",
            "tab-separated, one project a line, no header: id name due status category lead-name. Columns:",
            "id name due status category lead-name lead-email kickoff team clients notes complete createdTime,",
            "and the base's own fields by name (any case).",
        ])

    /// The flags of a project's fields, shared by `add` and `update`.
    static let fieldFlags: [FlagSpec] = [
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
    static let writeFlags: [FlagSpec] = [
        FlagSpec(name: "--dry-run", help: "print the requests (method, path, JSON body) and send nothing"),
        FlagSpec(name: "--json", help: "print the project objects as JSON instead of ids"),
        FlagSpec(name: "--quiet", short: "-q", help: "print nothing on success"),
    ]

    static let categoryChoices = ["Brand identity", "Industrial design", "Healthcare design", "Technology design"]

    /// tracker's words `update --clear` can empty (any field of the base can be named too).
    static let clearable: [FieldMap.Word] = [.kickoff, .lead, .team, .client, .notes, .category, .due]

    static let dateNote =
        "DATE is 2026-12-01 (or 2026-12-1), today, tomorrow, yesterday, a weekday (the next one), +3d, +2w or -1d."

    static let add = CommandSpec(
        name: "add", summary: "Create a project and print its id.",
        usage: [
            "tracker add --name NAME --due DATE [--kickoff DATE] [--category NAME]",
            "            [--lead EMAIL] [--team EMAIL]... [--client NAME|ID]...",
            "            [--notes TEXT | --notes-file PATH|-] [--complete] [--set FIELD=VALUE]...",
            "            [--if-absent] [--dry-run] [--json] [-q]",
        ],
        flags: fieldFlags + [
            FlagSpec(name: "--complete", help: "mark the project complete"),
            FlagSpec(
                name: "--if-absent", help: "if a project with exactly this name exists, print its id and create nothing"
            ),
        ] + writeFlags,
        examples: [
            "tracker add --name \"Spring campaign\" --due 2026-12-01",
            "id=$(tracker add --name \"Logo refresh\" --due +2w --lead ana@example.com)",
            "make-notes | tracker add --name \"Q1 audit\" --due +2w --notes-file -",
            "tracker add -q --if-absent --name \"Weekly review\" --due friday",
            "tracker add --name \"Site refresh\" --due +3w --set Budget=12000",
        ],
        notes: [
            "--name and --due are required (--due only when the base has a due date field). \(dateNote)",
            "Categories, clients and people are checked against the base first; nothing is created by a typo.",
            "With --if-absent it is safe to repeat, e.g. from cron.",
        ])

    static let show = CommandSpec(
        name: "show", summary: "Show every field of one project, by id or name.",
        usage: ["tracker show ID|NAME [--json]"], positional: "ID|NAME",
        flags: [FlagSpec(name: "--json", help: "print the project object as JSON")],
        examples: [
            "tracker show rec3g0Xxmw2rw3scs", "tracker show \"CMCA brand identity\"", "tracker show \"$id\" --json",
        ],
        notes: [namingNote])

    static let namingNote =
        "A project is named by its id, its exact name, or a name that matches ignoring case when only one does."

    static let update = CommandSpec(
        name: "update", summary: "Change some fields of one project; the others stay as they are.",
        usage: [
            "tracker update ID|NAME [--name NAME] [--due DATE] [--kickoff DATE] [--category NAME] [--lead EMAIL]",
            "               [--team EMAIL]... [--client NAME|ID]... [--notes TEXT | --notes-file PATH|-]",
            "               [--complete | --incomplete] [--set FIELD=VALUE]... [--clear FIELD[,FIELD]...]",
            "               [--dry-run] [--json] [-q]",
        ],
        positional: "ID|NAME",
        flags: fieldFlags + [
            FlagSpec(name: "--complete", help: "mark the project complete"),
            FlagSpec(name: "--incomplete", help: "mark the project not complete"),
            FlagSpec(
                name: "--clear", value: "FIELDS", repeatable: true, choices: clearable.map(\.rawValue),
                checksChoices: false,
                help: "empty these fields: kickoff, lead, team, client, notes, category, due, or any of the base's"),
        ] + writeFlags,
        examples: [
            "tracker update \"Spring campaign\" --due friday",
            "tracker update rec3g0Xxmw2rw3scs --team ana@example.com --team \"Sam Epps\"",
            "tracker update \"Logo refresh\" --clear kickoff,notes --dry-run",
            "tracker update \"Logo refresh\" --set Priority=high --set Tags=web,print",
        ],
        notes: [
            namingNote, dateNote, "--team and --client replace the whole list. It prints the project's id.",
        ])

    static let done = CommandSpec(
        name: "done", summary: "Mark projects complete.",
        usage: ["tracker done ID|NAME... [--dry-run] [--json] [-q]"], positional: "ID|NAME...",
        flags: writeFlags,
        examples: ["tracker done \"Spring campaign\"", "tracker done rec3g0Xxmw2rw3scs \"Logo refresh\""],
        notes: [
            namingNote, "Every name is found before anything is written; a project already complete is not an error.",
            "It prints the ids, one a line.",
        ])

    static let reopen = CommandSpec(
        name: "reopen", summary: "Mark projects not complete again.",
        usage: ["tracker reopen ID|NAME... [--dry-run] [--json] [-q]"], positional: "ID|NAME...",
        flags: writeFlags,
        examples: ["tracker reopen \"Spring campaign\""],
        notes: [namingNote, "It prints the ids, one a line."])

    static let delete = CommandSpec(
        name: "delete", summary: "Delete projects, after asking.",
        usage: ["tracker delete ID|NAME... [--yes] [--dry-run] [--json] [-q]"], positional: "ID|NAME...",
        flags: [FlagSpec(name: "--yes", short: "-y", help: "do not ask; needed when stdin is not a terminal")]
            + writeFlags,
        examples: ["tracker delete \"Old draft\"", "tracker delete --yes rec3g0Xxmw2rw3scs    # from a script"],
        notes: [namingNote, "On a terminal it shows what it will delete and asks. It prints the deleted ids."])

    static let importing = CommandSpec(
        name: "import", summary: "Create and update projects from CSV or JSON; safe to run again.",
        usage: ["tracker import [FILE|-] [--format csv|ndjson|json] [--key FIELD[,FIELD]] [--dry-run] [--json] [-q]"],
        positional: "FILE",
        flags: [
            FlagSpec(
                name: "--format", value: "FORMAT", choices: ImportFormat.allCases.map(\.rawValue),
                help: "csv, ndjson or json; else from the file's extension, else guessed"),
            FlagSpec(
                name: "--key", value: "FIELDS", choices: ["name", "due", "category"], checksChoices: false,
                help: "what matches a row to a project: up to three of name, due, category (default name)"),
        ] + writeFlags,
        examples: [
            "tracker list --format ndjson > all.ndjson; tracker import all.ndjson",
            "tracker import projects.csv --dry-run", "cat rows.csv | tracker import - --key name,due",
        ],
        notes: [
            "CSV columns: name due kickoff category lead team client notes complete (what list writes too);",
            "several emails or clients in one cell are separated by ;. Every row is checked before anything is written.",
            "A row whose key matches one project updates it; interrupted imports finish when run again.",
        ])

    static let initialize = CommandSpec(
        name: "init", summary: "Create the secrets file: token, base and table, checked first.",
        usage: [
            "tracker init [--base ID] [--table NAME] [--path PATH] [--force]",
            "tracker init --profile NAME [--token-command 'COMMAND…'] [--base ID] [--table NAME] [--force]",
        ],
        flags: [
            FlagSpec(name: "--base", value: "ID", help: "the base id, app… (asked on a terminal)"),
            FlagSpec(
                name: "--token-command", value: "COMMAND",
                help: "keep no token in the file: run this to get it (split on spaces; '…' quotes)"),
            FlagSpec(name: "--table", value: "NAME", help: "the table (default \"Design projects\")"),
            FlagSpec(name: "--path", value: "PATH", help: "write here instead of ~/.config/tracker/Secrets.json"),
            FlagSpec(name: "--force", help: "replace an existing file"),
        ],
        examples: [
            "tracker init", "printf '%s\\n' \"$TOKEN\" | tracker init --base appXXXXXXXXXXXXXX",
            "tracker init --profile work --token-command 'pass show airtable'",
        ],
        notes: [
            "On a terminal it asks for the token (without echo), the base id and the table; otherwise it reads the",
            "token from stdin's first line and needs --base. One read checks them before the file is written (0600).",
            "With --profile it adds (or with --force replaces) that profile and leaves the file's others as they were.",
        ])

    static let doctor = CommandSpec(
        name: "doctor", summary: "Check the configuration, the token, and the table's fields.",
        usage: ["tracker doctor [--json]"],
        flags: [FlagSpec(name: "--json", help: "one object with a checks array (name, ok, detail)")],
        examples: ["tracker doctor", "tracker doctor --json | jq '.checks[] | select(.ok | not)'"],
        notes: [
            "Every check runs, even after one fails; it exits with the code of the first failing check, as any command",
            "would, and 0 only when all pass.",
        ])

    static let completion = CommandSpec(
        name: "completion", summary: "Print a shell completion script (bash, zsh or fish).",
        usage: ["tracker completion bash|zsh|fish"], positional: "SHELL", flags: [],
        examples: [
            "eval \"$(tracker completion bash)\"    # in ~/.bashrc",
            "tracker completion zsh > \"${fpath[1]}/_tracker\"",
            "tracker completion fish > ~/.config/fish/completions/tracker.fish",
        ],
        notes: ["For zsh, run 'autoload -U compinit && compinit' once the file is on $fpath."])

    static let help = CommandSpec(
        name: "help", summary: "Show help for tracker or one of its commands.",
        usage: ["tracker help [COMMAND] | tracker help --man"], positional: "COMMAND",
        flags: [FlagSpec(name: "--man", help: "print the manual page (roff), e.g. for man(1)")],
        examples: ["tracker help add", "tracker help --man | man -l -"])

    /// The subcommands, in the order help lists them.
    static let all: [CommandSpec] = [
        list, add, show, update, done, reopen, delete, importing, initialize, doctor, completion, help,
    ]

    static func named(_ name: String) -> CommandSpec? { all.first { $0.name == name } }
}
