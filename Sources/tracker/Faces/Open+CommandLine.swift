#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Open: Command {
    /// Prints the address and, on a terminal, hands it to the browser.
    func run(_ runner: Runner) async throws {
        let options = self
        let page = try await runner.perform(options)
        try runner.output.standardOutput(page.address + "\n")
        if page.isTheBase {
            runner.output.standardError(
                "tracker: this is the base's address: the project's needs the table's id, and the token lacks "
                    + "schema.bases:read\n")
            return
        }
        guard runner.output.isStdoutTerminal, !options.printsOnly else { return }
        if !runner.context.openInBrowser(page.address) {
            runner.output.standardError("tracker: no browser to open it with; set BROWSER, or install xdg-utils\n")
        }
    }
}
