import TrackerModel
import TrackerOperations
/// The manual page (`tracker help --man`, roff for man(1)), built from the same specs as help and completion.
enum ManualPage {
    static var page: String {
        var text = """
            .TH TRACKER 1 "" "tracker \(Version.current)" "User Commands"
            .SH NAME
            tracker \\- the projects of an Airtable Project tracker base, from the command line
            .SH SYNOPSIS
            .B tracker
            \\fIcommand\\fR [\\fIflags\\fR]
            .SH DESCRIPTION
            tracker lists, adds, changes and imports the projects of an Airtable "Project tracker" base. On a terminal
            it prints tables and asks before deleting; in pipes and cron it prints plain data, never asks, and says
            every failure in one line with an exit status scripts can rely on.
            .SH COMMANDS

            """
        for spec in CommandRegistry.specs {
            text += ".SS \(escape(spec.name))\n\(escape(spec.summary))\n.PP\n.nf\n"
            // man indents a command's text by seven columns.
            text +=
                HelpPage.synopses(spec).flatMap { HelpPage.usageLines($0, width: 73) }.map { escape($0) + "\n" }
                .joined()
                + ".fi\n"
            text += flags(spec.flags)
            if !spec.notes.isEmpty { text += ".PP\n" + escape(spec.notes.joined(separator: " ")) + "\n" }
            text += ".PP\nExamples:\n.nf\n" + spec.examples.map { escape($0) + "\n" }.joined() + ".fi\n"
        }
        text += ".SH GLOBAL FLAGS\n" + flags(CommandSpec.globalFlags(describing: CommandRegistry.specs))
        text += """
            .SH FILES
            .TP
            .I ~/.config/tracker/Secrets.json
            The secrets file \\fBtracker init\\fR writes ($XDG_CONFIG_HOME/tracker/Secrets.json when that is set). Also
            looked for: \\-\\-secrets PATH, $TRACKER_SECRETS, ./Secrets.json.
            .TP
            .I /tmp/tracker-UID/
            Pacing and locks shared by all of a user's tracker processes ($TRACKER_RUNTIME_DIR to move it); with
            "redis" set, a team's Redis shares them across machines instead.
            .SH ENVIRONMENT
            AIRTABLE_TOKEN, AIRTABLE_BASE_ID, AIRTABLE_TABLE (default "Design projects") and AIRTABLE_ENDPOINT_URL
            override single settings. TRACKER_REDIS_URL (redis://, rediss://, unix://) and TRACKER_REDIS_CA name a
            team's Redis and its CA; an empty TRACKER_REDIS_URL runs one command on this machine alone.
            NO_COLOR turns colour off. HTTPS_PROXY and NO_PROXY work as for curl.
            .SH EXIT STATUS
            .TS
            l l.
            0\tsuccess
            1\tanything not below
            64\tusage: a bad command, flag or value; an ambiguous name
            65\tAirtable rejected the data; import found invalid rows
            66\tnot found
            69\tAirtable or network failing; untrusted TLS; quota used up
            75\ttemporary: rate limit, timeout, a write's outcome unknown
            77\tauthentication or permission
            78\tconfiguration
            130\tinterrupted
            .TE

            """
        return text
    }

    private static func flags(_ flags: [FlagSpec]) -> String {
        flags.map { flag in
            let names = [flag.short, flag.name].compactMap { $0 }.map { "\\fB\(escape($0))\\fR" }.joined(
                separator: ", ")
            return ".TP\n" + names + (flag.value.map { " \\fI\(escape($0))\\fR" } ?? "") + "\n" + escape(flag.help)
                + "\n"
        }.joined()
    }

    /// Text safe in roff: backslashes and hyphens escaped, no line starting with a control character.
    static func escape(_ text: String) -> String {
        let escaped = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}
