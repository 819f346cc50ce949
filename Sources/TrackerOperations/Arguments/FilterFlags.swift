#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// The filters `list` has, which every command that reads many projects shares (`calendar` among them).
extension CommandSpec {
    /// The filter flags, in the order help lists them; they combine with AND and run on Airtable.
    package static let filterFlags: [FlagSpec] = [
        FlagSpec(name: "--overdue", help: "only projects due before today and not complete"),
        FlagSpec(name: "--due-before", value: "DATE", help: "only projects due before this date (friday, +2w…)"),
        FlagSpec(
            name: "--due-within", value: "DAYS", minimum: 1,
            help: "only projects due within DAYS days: \(DueWithin.words("DAYS"))"),
        FlagSpec(name: "--complete", help: "only complete projects"),
        FlagSpec(name: "--incomplete", help: "only projects not yet complete"),
        FlagSpec(
            name: "--category", value: "NAME", choices: CommandSpec.categoryChoices, checksChoices: false,
            help: "only this category, e.g. \"Brand identity\""),
        FlagSpec(name: "--lead", value: "NAME|EMAIL", help: "only projects this person leads (me: you)"),
        FlagSpec(name: "--team", value: "NAME|EMAIL", help: "only projects with this person in the team (me: you)"),
        FlagSpec(name: "--mine", help: "only projects you lead or are in the team of (the token's user)"),
        FlagSpec(name: "--client", value: "NAME|ID", help: "only projects of this client (by name or record id)"),
        FlagSpec(
            name: "--search", value: "TEXT", help: "only projects whose name or notes contain TEXT (any case)"),
        FlagSpec(
            name: "--view", value: "NAME",
            help: "only the projects of this saved view, in its order; the other filters narrow it further"),
    ]
}

extension ScannedArguments {
    /// The filters given, checked as far as no request is needed.
    package func projectFilters(today: CalendarDate) throws -> ProjectFilters {
        try rejectTogether("--complete", "--incomplete")
        try rejectTogether("--overdue", "--complete")
        var filters = ProjectFilters()
        filters.dueBefore = try date("--due-before", today: today)
        filters.overdue = has("--overdue")
        filters.dueWithinDays = try wholeNumber("--due-within")
        filters.complete = has("--complete") ? true : has("--incomplete") ? false : nil
        filters.category = try nonEmpty("--category")
        filters.lead = try nonEmpty("--lead")
        filters.team = try nonEmpty("--team")
        filters.mine = has("--mine")
        filters.search = try nonEmpty("--search")
        filters.client = try nonEmpty("--client")
        return filters
    }

    /// `--view NAME`, without the spaces around it.
    package func view() throws -> String? {
        try nonEmpty("--view").map { $0.trimmingWhitespace() }
    }

    /// A count given to `flag`: a whole number from `minimum` to a million.
    /// The flag's whole number, within the range its spec gives (the range mcp's tool schema states too).
    package func wholeNumber(_ flag: String) throws -> Int? {
        guard let value = last(flag) else { return nil }
        let spec = (command?.flags ?? []).first { $0.name == flag } ?? FlagSpec(name: flag, help: "")
        guard let number = Int(value), number >= spec.minimum, number <= spec.maximum else {
            let maximum = spec.maximum == 1_000_000 ? "1,000,000" : "\(spec.maximum)"
            throw AppError.usage(
                "\(flag) must be a whole number from \(spec.minimum) to \(maximum), not '\(value)'",
                command: command?.name)
        }
        return number
    }
}
