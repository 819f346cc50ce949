#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerSystem

extension Open: Command {
    func run(_ runner: Runner) async throws { try await runner.open(self) }
}

extension Runner {
    /// Prints the address and, on a terminal, hands it to the browser.
    fileprivate func open(_ options: Open) async throws {
        let page = try await perform(options)
        try output.standardOutput(page.address + "\n")
        if page.isTheBase {
            output.standardError(
                "tracker: this is the base's address: the project's needs the table's id, and the token lacks "
                    + "schema.bases:read\n")
            return
        }
        guard output.isStdoutTerminal, !options.printsOnly else { return }
        if !context.openInBrowser(page.address) {
            output.standardError("tracker: no browser to open it with; set BROWSER, or install xdg-utils\n")
        }
    }
}
