#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerModel
import TrackerOperations
import TrackerSystem

extension Report: Command {
    func run(_ runner: Runner) async throws { try await runner.report(self) }
}

extension Runner {
    /// Writes the digest at once, in the format asked for.
    fileprivate func report(_ options: Report) async throws {
        guard let document = try await perform(options) else { return }
        switch options.format {
        case .text: try output.standardOutput(document.digest.isEmpty ? document.nothingLine + "\n" : document.text())
        case .markdown: try output.standardOutput(document.markdown())
        case .html: try output.standardOutput(document.html())
        case .json: try output.standardOutput(document.json(today: today))
        case .email: try output.standardOutput(mail(document, options).rendered())
        }
    }

    private func mail(_ document: ReportDocument, _ options: Report) -> MailMessage {
        let environment = context.environment
        let host = Self.hostName()
        let login = [environment["LOGNAME"], environment["USER"]].compactMap { $0 }.first { !$0.isEmpty } ?? "tracker"
        let sender =
            options.sender ?? environment["EMAIL"].flatMap(MailMessage.mailbox)
            ?? MailMessage.mailbox("\(login)@\(host)") ?? "tracker@localhost.localdomain"
        let now = context.now()
        let unique = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let summary = document.digest.isEmpty ? document.nothingLine : document.counts
        return MailMessage(
            from: sender, to: options.recipients, subject: "\(TextCells.folded(document.tableName)): \(summary)",
            date: MailMessage.date(now, in: context.timeZone),
            messageID: "<tracker.\(Int(now.timeIntervalSince1970)).\(unique)@\(host)>",
            text: document.digest.isEmpty ? document.nothingLine + "\n" : document.text(), html: document.html(),
            boundary: "=_tracker_\(unique)")
    }

    /// This machine's name as a mail domain: letters, digits, dots and hyphens, with a dot (or `.localdomain`).
    private static func hostName() -> String {
        let name = POSIX.hostName() ?? ""
        let cleaned = String(
            name.unicodeScalars.filter {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-")
            })
        if cleaned.isEmpty { return "localhost.localdomain" }
        return cleaned.contains(".") ? cleaned : cleaned + ".localdomain"
    }
}
