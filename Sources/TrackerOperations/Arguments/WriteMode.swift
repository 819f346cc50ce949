import TrackerModel

/// How a write command reports: `--dry-run` prints the requests instead of sending them, `--json` prints project
/// objects instead of ids, `-q` prints nothing.
package struct WriteMode: Equatable, Sendable {
    package var dryRun = false
    package var json = false
    package var quiet = false

    /// Each value given.
    package init(dryRun: Bool = false, json: Bool = false, quiet: Bool = false) {
        self.dryRun = dryRun
        self.json = json
        self.quiet = quiet
    }
}

extension ScannedArguments {
    /// `--dry-run`, `--json` and `-q`, which every write command has.
    package func writeMode() throws -> WriteMode {
        try rejectTogether("--json", "--quiet")
        return WriteMode(dryRun: has("--dry-run"), json: has("--json"), quiet: has("--quiet"))
    }
}
