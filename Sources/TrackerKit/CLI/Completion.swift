/// The shells `tracker completion` writes scripts for.
public enum Shell: String, Sendable, CaseIterable {
    case bash, zsh, fish
}

/// Shell completion scripts generated from the command specs: subcommands, flags, and fixed flag values.
enum Completion {
    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    private static var commands: [CommandSpec] { CommandSpec.all }
    private static var globalWords: [String] { CommandSpec.globalFlags.map(\.name) + ["-h"] }

    private static func flags(_ spec: CommandSpec) -> [String] {
        spec.flags.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) } + globalWords
    }

    /// Flags whose values come from a fixed list.
    private static var valued: [FlagSpec] {
        var seen: Set<String> = []
        return (commands.flatMap(\.flags) + CommandSpec.globalFlags).filter {
            !$0.choices.isEmpty && seen.insert($0.name).inserted
        }
    }

    private static let fileFlags = ["--secrets", "--notes-file"]

    private static var bash: String {
        var text = """
            # bash completion for tracker; load with: eval "$(tracker completion bash)"
            _tracker() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" command="" word
                for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
                    case "$word" in
                        \(commands.map(\.name).joined(separator: "|"))) command="$word"; break ;;
                    esac
                done
                case "$prev" in

            """
        for flag in valued {
            let words = flag.choices.joined(separator: "\\n")
            text += "        \(flag.name))\n            local IFS=$'\\n'\n"
            text += "            COMPREPLY=($(compgen -W $'\(words)' -- \"$cur\"))\n"
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
            let positional = spec.name == "help" ? " " + commands.map(\.name).joined(separator: " ") : ""
            let shells = spec.name == "completion" ? " " + Shell.allCases.map(\.rawValue).joined(separator: " ") : ""
            text +=
                "        \(spec.name)) COMPREPLY=($(compgen -W \"\(flags(spec).joined(separator: " "))\(positional)\(shells)\" -- \"$cur\")) ;;\n"
        }
        text += "    esac\n}\ncomplete -F _tracker tracker\n"
        return text
    }

    private static var zsh: String {
        var text = "#compdef tracker\n# zsh completion for tracker; save as _tracker on your $fpath\n_tracker() {\n"
        text += "    local -a commands\n    commands=(\n"
        for spec in commands {
            text += "        '\(spec.name):\(spec.summary.replacingOccurrences(of: "'", with: "'\\''"))'\n"
        }
        text += "    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' commands\n        return\n    fi\n"
        text += "    case ${words[2]} in\n"
        for spec in commands {
            text += "        \(spec.name))\n            _arguments \\\n"
            for flag in spec.flags + CommandSpec.globalFlags {
                let help = flag.help.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(
                    of: "[", with: "("
                )
                .replacingOccurrences(of: "]", with: ")").replacingOccurrences(of: ":", with: "-")
                var action = ""
                if !flag.choices.isEmpty {
                    action =
                        ":\(flag.value ?? "value"):("
                        + flag.choices.map { $0.replacingOccurrences(of: " ", with: "\\ ") }.joined(separator: " ")
                        + ")"
                } else if fileFlags.contains(flag.name) {
                    action = ":\(flag.value ?? "file"):_files"
                } else if let value = flag.value {
                    action = ":\(value): "
                }
                text +=
                    "                '\(flag.name)[\(help)]\(action.replacingOccurrences(of: "'", with: "'\\''"))' \\\n"
            }
            if spec.name == "completion" { text += "                '1:shell:(bash zsh fish)' \\\n" }
            text += "                '*: :' ;;\n"
        }
        text += "    esac\n}\n_tracker \"$@\"\n"
        return text
    }

    private static var fish: String {
        var text = "# fish completion for tracker; save as ~/.config/fish/completions/tracker.fish\n"
        let names = commands.map(\.name).joined(separator: " ")
        text += "complete -c tracker -f\n"
        for spec in commands {
            text +=
                "complete -c tracker -n 'not __fish_seen_subcommand_from \(names)' -a \(spec.name) -d '\(spec.summary.replacingOccurrences(of: "'", with: "\\'"))'\n"
        }
        for spec in commands {
            for flag in spec.flags + CommandSpec.globalFlags {
                var line =
                    "complete -c tracker -n '__fish_seen_subcommand_from \(spec.name)' -l \(flag.name.dropFirst(2))"
                if let short = flag.short { line += " -s \(short.dropFirst())" }
                if !flag.choices.isEmpty {
                    line += " -x -a '" + flag.choices.map { "\"\($0)\"" }.joined(separator: " ") + "'"
                } else if fileFlags.contains(flag.name) {
                    line += " -r -F"
                } else if flag.value != nil {
                    line += " -x"
                }
                text += line + " -d '\(flag.help.replacingOccurrences(of: "'", with: "\\'"))'\n"
            }
        }
        text += "complete -c tracker -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n"
        return text
    }
}
