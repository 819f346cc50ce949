import TrackerModel
import TrackerOperations
/// The shells `tracker completion` writes scripts for.
enum Shell: String, Sendable, CaseIterable {
    case bash, zsh, fish
}

/// Shell completion scripts generated from the command specs: subcommands, flags, and fixed flag values.
enum CompletionScript {
    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    private static var commands: [CommandSpec] { CommandRegistry.specs }
    private static var globalWords: [String] { CommandSpec.globalFlags.map(\.name) + ["-h"] }

    private static func flags(_ spec: CommandSpec) -> [String] {
        spec.flags.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) } + globalWords
    }

    /// Flags whose values come from a fixed list, each with the commands whose list differs from the first one's
    /// (`--format` is list's formats in list, the report's in report).
    private static var valued: [(flag: FlagSpec, others: [(command: String, choices: [String])])] {
        var order: [String] = []
        var first: [String: FlagSpec] = [:]
        var others: [String: [(String, [String])]] = [:]
        for (command, flag) in commands.flatMap({ spec in spec.flags.map { (spec.name, $0) } })
            + CommandSpec.globalFlags.map({ ("", $0) })
        where !flag.choices.isEmpty && namedValues[flag.name] == nil {
            guard let seen = first[flag.name] else {
                first[flag.name] = flag
                order.append(flag.name)
                continue
            }
            if seen.choices != flag.choices { others[flag.name, default: []].append((command, flag.choices)) }
        }
        return order.map { (first[$0]!, others[$0] ?? []) }
    }

    /// Flags whose values are names tracker last read (the names file) or the secrets file's profiles.
    private static let namedValues: [String: CompletionNames.Kind] = [
        "--category": .categories, "--view": .views, "--set": .fields, "--columns": .columns, "--profile": .profiles,
        "--assignee": .people, "--project": .projects, "--move-to": .projects, "--task": .tasks, "--client": .clients,
    ]

    /// `task`'s verbs, and those whose arguments are tasks by name (`add` takes a project).
    private static let taskVerbs = TaskCommand.verbs
    private static var taskNamingVerbs: [String] { taskVerbs.filter { $0 != "add" } }

    /// Commands whose arguments are projects.
    private static var projectCommands: [String] { commands.filter { $0.arguments == .projects }.map(\.name) }

    /// Flags whose value is a file: their placeholder says so (PATH, FILE).
    private static var fileFlags: [String] {
        var seen: Set<String> = []
        return (CommandSpec.globalFlags + commands.flatMap(\.flags)).filter {
            ["PATH", "FILE"].contains($0.value ?? "") && seen.insert($0.name).inserted
        }.map(\.name)
    }

    private static var bash: String {
        var text = """
            # bash completion for tracker; load with: eval "$(tracker completion bash)"
            # Names of projects, categories, views and fields come from what tracker last listed or showed
            # ('tracker __complete KIND' reads its cache): no request is sent at TAB.
            _tracker_names() {
                local typed="$cur" line i
                local -a args=(__complete "$1")
                for ((i = 1; i < COMP_CWORD; i++)); do
                    case "${COMP_WORDS[i]}" in --secrets|--profile) args+=("${COMP_WORDS[i]}" "${COMP_WORDS[i+1]}") ;; esac
                done
                # The word as typed, without bash's quoting, matched ignoring case.
                # Inside quotes readline closes them itself, so names go in as they are; otherwise each is escaped.
                local backslash=$'\\x5c' double=$'\\x22' single=$'\\x27' quoted=""
                if [[ "$typed" == "$double"* || "$typed" == "$single"* ]]; then quoted=1; typed="${typed:1}"; else typed="${typed//"$backslash"/}"; fi
                local prefix="" suffix="${2:-}"
                if [[ "$suffix" == "," ]]; then prefix="${typed%${typed##*,}}"; typed="${typed##*,}"; fi
                COMPREPLY=()
                while IFS= read -r line; do
                    [[ "${line,,}" == "${typed,,}"* ]] || continue
                    [[ -z "$quoted" ]] && line="$(printf '%q' "$line")"
                    COMPREPLY+=("$prefix$line${suffix#,}")
                done < <("${COMP_WORDS[0]}" "${args[@]}" 2>/dev/null)
                [[ -n "$suffix" ]] && compopt -o nospace 2>/dev/null
                return 0
            }
            _tracker() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" command="" word
                for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
                    case "$word" in
                        \(commands.map(\.name).joined(separator: "|"))) command="$word"; break ;;
                    esac
                done
                case "$prev" in

            """
        for (flag, kind) in namedValues.sorted(by: { $0.key < $1.key }) {
            let suffix = flag == "--set" ? " =" : flag == "--columns" ? " ," : ""
            text += "        \(flag)) _tracker_names \(kind.rawValue)\(suffix); return ;;\n"
        }
        for (flag, others) in valued {
            func reply(_ choices: [String]) -> String {
                "COMPREPLY=($(compgen -W $'\(choices.joined(separator: "\\n"))' -- \"$cur\"))"
            }
            text += "        \(flag.name))\n            local IFS=$'\\n'\n"
            if others.isEmpty {
                text += "            \(reply(flag.choices))\n"
            } else {
                text += "            case \"$command\" in\n"
                for (command, choices) in others { text += "                \(command)) \(reply(choices)) ;;\n" }
                text += "                *) \(reply(flag.choices)) ;;\n            esac\n"
            }
            // Values with spaces must be inserted escaped, or they become two words.
            text += "            COMPREPLY=(\"${COMPREPLY[@]// /\\\\ }\")\n"
            text += "            return ;;\n"
        }
        text +=
            "        \(fileFlags.joined(separator: "|")))\n            COMPREPLY=($(compgen -f -- \"$cur\"))\n            return ;;\n"
        text += "    esac\n    case \"$command\" in\n"
        text +=
            "        \"\") COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " ")) \(globalWords.joined(separator: " ")) --version\" -- \"$cur\")) ;;\n"
        for spec in commands {
            let positional = spec.arguments == .commands ? " " + commands.map(\.name).joined(separator: " ") : ""
            let shells = spec.arguments == .shells ? " " + Shell.allCases.map(\.rawValue).joined(separator: " ") : ""
            let words =
                "COMPREPLY=($(compgen -W \"\(flags(spec).joined(separator: " "))\(positional)\(shells)\" -- \"$cur\"))"
            if projectCommands.contains(spec.name) {
                text +=
                    "        \(spec.name)) if [[ \"$cur\" == -* ]]; then \(words); else _tracker_names projects; fi ;;\n"
            } else if spec.arguments == .projectThenFiles || spec.arguments == .projectThenDirectory {
                // The first bare word is the project (none after --client); later ones are files or a directory.
                let valued = (spec.flags + CommandSpec.globalFlags).filter { $0.value != nil }.map(\.name)
                let rest = spec.arguments == .projectThenFiles ? "compgen -f" : "compgen -d"
                text += "        \(spec.name))\n            local bare=0 previous=\"\" i\n"
                text += "            for ((i = 2; i < COMP_CWORD; i++)); do\n"
                text += "                word=\"${COMP_WORDS[i]}\"\n"
                text += "                [[ \"$word\" == --client ]] && bare=1\n"
                text +=
                    "                case \"$previous\" in \(valued.joined(separator: "|"))) ;; *) [[ \"$word\" != -* ]] && ((bare++)) ;; esac\n"
                text += "                previous=\"$word\"\n            done\n"
                text += "            if [[ \"$cur\" == -* ]]; then \(words)\n"
                text += "            elif ((bare == 0)); then _tracker_names projects\n"
                text +=
                    "            else local IFS=$'\\n'; COMPREPLY=($(\(rest) -- \"$cur\")); compopt -o filenames 2>/dev/null || true; fi ;;\n"
            } else if spec.arguments == .taskVerbs {
                // The verb first; then a project after `add`, tasks by name after the others.
                let verbs = taskVerbs.joined(separator: "|")
                text += "        \(spec.name))\n            local verb=\"\"\n"
                text += "            for word in \"${COMP_WORDS[@]:2:COMP_CWORD-2}\"; do\n"
                text += "                case \"$word\" in \(verbs)) verb=\"$word\"; break ;; esac\n            done\n"
                text += "            if [[ \"$cur\" == -* ]]; then \(words)\n"
                text +=
                    "            elif [[ -z \"$verb\" ]]; then COMPREPLY=($(compgen -W \"\(taskVerbs.joined(separator: " "))\" -- \"$cur\"))\n"
                text += "            elif [[ \"$verb\" == add ]]; then _tracker_names projects\n"
                text += "            else _tracker_names tasks; fi ;;\n"
            } else {
                text += "        \(spec.name)) \(words) ;;\n"
            }
        }
        text += "    esac\n}\ncomplete -F _tracker tracker\n"
        return text
    }

    private static var zsh: String {
        let matchCase = "-M 'm:{a-zA-Z}={A-Za-z}'"
        var text = """
            #compdef tracker
            # zsh completion for tracker; save as _tracker on your $fpath
            # Names of projects, categories, views and fields come from what tracker last listed or showed
            # ('tracker __complete KIND' reads its cache): no request is sent at TAB.
            _tracker_names() {
                local -a names args
                local i
                for (( i = 2; i < CURRENT; i++ )); do
                    case ${words[i]} in --secrets|--profile) args+=(${words[i]} ${(Q)words[i+1]}) ;; esac
                done
                names=("${(@f)$(${words[1]} __complete $1 $args 2>/dev/null)}")
                names=(${names:#})
                case $2 in
                    =) compadd \(matchCase) -S '=' -a names ;;
                    ,) compset -P '*,'; compadd \(matchCase) -S ',' -q -a names ;;
                    *) compadd \(matchCase) -a names ;;
                esac
            }
            _tracker() {
                local -a commands
                commands=(

            """
        for spec in commands {
            text += "        '\(spec.name):\(spec.summary.replacing("'", with: "'\\''"))'\n"
        }
        let names = commands.map(\.name).joined(separator: "|")
        text += "    )\n    local command word\n    for word in ${words[2,CURRENT-1]}; do\n"
        text += "        case $word in \(names)) command=$word; break ;; esac\n    done\n"
        text +=
            "    if [[ -z $command && $PREFIX != -* ]]; then\n        _describe 'command' commands\n        return\n    fi\n"
        text += "    case $command in\n"
        for spec in commands + [CommandSpec(name: "", summary: "", usage: [], flags: [], examples: [], notes: [])] {
            text += "        \(spec.name.isEmpty ? "\"\"" : spec.name))\n            _arguments \\\n"
            for flag in spec.flags + CommandSpec.globalFlags {
                let help = flag.help.replacing("'", with: "'\\''").replacing(
                    "[", with: "("
                )
                .replacing("]", with: ")").replacing(":", with: "-")
                var action = ""
                if let kind = namedValues[flag.name] {
                    let suffix = flag.name == "--set" ? " =" : flag.name == "--columns" ? " ," : ""
                    // In braces, so _arguments calls it as written rather than with compadd options first.
                    action = ":\(flag.value ?? "value"):{_tracker_names \(kind.rawValue)\(suffix)}"
                } else if !flag.choices.isEmpty {
                    action =
                        ":\(flag.value ?? "value"):("
                        + flag.choices.map { $0.replacing(" ", with: "\\ ") }.joined(separator: " ")
                        + ")"
                } else if fileFlags.contains(flag.name) {
                    action = ":\(flag.value ?? "file"):_files"
                } else if let value = flag.value {
                    action = ":\(value): "
                }
                let repeats = flag.repeatable ? "*" : ""
                text +=
                    "                '\(repeats)\(flag.name)[\(help)]\(action.replacing("'", with: "'\\''"))' \\\n"
            }
            if spec.arguments == .shells {
                text += "                '1:shell:(\(Shell.allCases.map(\.rawValue).joined(separator: " ")))' \\\n"
            }
            if spec.arguments == .projectThenFiles || spec.arguments == .projectThenDirectory {
                let rest = spec.arguments == .projectThenFiles ? "file:_files" : "directory:_files -/"
                text += "                '1:project:{_tracker_names projects}' \\\n"
                text += "                '*:\(rest)' ;;\n"
            } else if spec.arguments == .taskVerbs {
                text += "                '1:verb:(\(taskVerbs.joined(separator: " ")))' \\\n"
                text +=
                    "                '*:task:{[[ ${words[3]} == add ]] && _tracker_names projects || _tracker_names tasks}' ;;\n"
            } else {
                text +=
                    projectCommands.contains(spec.name)
                    ? "                '*:project:{_tracker_names projects}' ;;\n" : "                '*: :' ;;\n"
            }
        }
        text += "    esac\n}\n_tracker \"$@\"\n"
        return text
    }

    private static var fish: String {
        var text = """
            # fish completion for tracker; save as ~/.config/fish/completions/tracker.fish
            # Names of projects, categories, views and fields come from what tracker last listed or showed
            # ('tracker __complete KIND' reads its cache): no request is sent at TAB.
            function __tracker_names
                set -l tokens (commandline -opc)
                set -l args
                for i in (seq 2 (count $tokens))
                    if contains -- $tokens[$i] --secrets --profile; and test $i -lt (count $tokens)
                        set args $args $tokens[$i] $tokens[(math $i + 1)]
                    end
                end
                command $tokens[1] __complete $argv[1] $args 2>/dev/null
            end
            function __tracker_set_fields
                for name in (__tracker_names fields)
                    echo $name=
                end
            end

            """
        let names = commands.map(\.name).joined(separator: " ")
        text += "complete -c tracker -f\n"
        for spec in commands {
            text +=
                "complete -c tracker -n 'not __fish_seen_subcommand_from \(names)' -a \(spec.name) -d '\(spec.summary.replacing("'", with: "\\'"))'\n"
        }
        for spec in commands {
            for flag in spec.flags + CommandSpec.globalFlags {
                var line =
                    "complete -c tracker -n '__fish_seen_subcommand_from \(spec.name)' -l \(flag.name.dropFirst(2))"
                if let short = flag.short { line += " -s \(short.dropFirst())" }
                if let kind = namedValues[flag.name] {
                    switch flag.name {
                    case "--set": line += " -x -a '(__tracker_set_fields)'"
                    case "--columns": line += " -x -a '(__fish_complete_list , \"__tracker_names columns\")'"
                    default: line += " -x -a '(__tracker_names \(kind.rawValue))'"
                    }
                } else if !flag.choices.isEmpty {
                    line += " -x -a '" + flag.choices.map { "\"\($0)\"" }.joined(separator: " ") + "'"
                } else if fileFlags.contains(flag.name) {
                    line += " -r -F"
                } else if flag.value != nil {
                    line += " -x"
                }
                text += line + " -d '\(flag.help.replacing("'", with: "\\'"))'\n"
            }
        }
        text +=
            "complete -c tracker -n '__fish_seen_subcommand_from \(projectCommands.joined(separator: " "))' -a '(__tracker_names projects)'\n"
        for spec in commands where spec.arguments == .taskVerbs {
            let verbs = taskVerbs.joined(separator: " ")
            text +=
                "complete -c tracker -n '__fish_seen_subcommand_from \(spec.name); and not __fish_seen_subcommand_from \(verbs)' -a '\(verbs)'\n"
            text +=
                "complete -c tracker -n '__fish_seen_subcommand_from \(spec.name); and __fish_seen_subcommand_from add' -a '(__tracker_names projects)'\n"
            text +=
                "complete -c tracker -n '__fish_seen_subcommand_from \(spec.name); and __fish_seen_subcommand_from \(taskNamingVerbs.joined(separator: " "))' -a '(__tracker_names tasks)'\n"
        }
        for spec in commands where spec.arguments == .projectThenFiles || spec.arguments == .projectThenDirectory {
            // The project is the first word; fish offers files (or directories) beside the names after it.
            text +=
                "complete -c tracker -n '__fish_seen_subcommand_from \(spec.name)' -a '(__tracker_names projects)'\n"
            text +=
                spec.arguments == .projectThenFiles
                ? "complete -c tracker -n '__fish_seen_subcommand_from \(spec.name)' -F\n"
                : "complete -c tracker -n '__fish_seen_subcommand_from \(spec.name)' -a '(__fish_complete_directories)'\n"
        }
        for spec in commands where spec.arguments == .shells {
            text +=
                "complete -c tracker -n '__fish_seen_subcommand_from \(spec.name)' -a '\(Shell.allCases.map(\.rawValue).joined(separator: " "))'\n"
        }
        return text
    }
}
