#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

/// Open projects as bars from kickoff to due over the coming weeks: one row a project under a week ruler with today
/// marked, fitted to a width, in box-drawing characters or plain ASCII.
struct TimelineChart {
    /// The characters a chart is drawn with.
    struct Glyphs: Equatable {
        var bar: Character
        var due: Character
        var beyond: Character
        var before: Character
        var week: Character
        var today: Character
        var rule: Character
        var ruleWeek: Character
        var ruleToday: Character
        /// Ends a name cut to fit.
        var cut: Character

        static let unicode = Glyphs(
            bar: "━", due: "◆", beyond: "▶", before: "◀", week: "┊", today: "│", rule: "─", ruleWeek: "┬",
            ruleToday: "▼", cut: "…")
        static let ascii = Glyphs(
            bar: "=", due: "#", beyond: ">", before: "<", week: ":", today: "|", rule: "-", ruleWeek: "+",
            ruleToday: "v", cut: "~")

        /// Box drawing on a terminal whose locale is UTF-8; plain ASCII piped (mail, files) or elsewhere.
        static func `for`(isTerminal: Bool, environment: [String: String]) -> Glyphs {
            isTerminal && localeIsUTF8(environment) ? .unicode : .ascii
        }

        /// Whether the locale's characters are UTF-8, as C programs decide: LC_ALL, else LC_CTYPE, else LANG.
        static func localeIsUTF8(_ environment: [String: String]) -> Bool {
            let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
            let lowered = locale.lowercased()
            return lowered.contains("utf-8") || lowered.contains("utf8")
        }
    }

    var today: CalendarDate
    var weeks: Int
    /// The columns the whole chart may use.
    var width: Int
    var glyphs: Glyphs
    var style: Style

    /// The Monday of today's week: the chart starts there so that today is marked inside it.
    var start: CalendarDate { CalendarDate(dayNumber: today.dayNumber - today.weekdayIndex) }
    var days: Int { weeks * 7 }

    /// Shortest a name may be shortened to, and the narrowest chart, before either gives way.
    static let minimumName = 8
    static let readableName = 20
    static let minimumChart = 14
    /// ` 12-01`: the due date after the bar.
    static let dueWidth = 6

    /// The chart, every row ending in a newline; empty without projects.
    func render(_ projects: [Project]) -> String {
        let dated = projects.filter { $0.due != nil }
        guard !dated.isEmpty else { return "" }
        let names = dated.map { TextCells.safe($0.name ?? $0.id, breaks: .fold) }
        let longest = names.map(TextCells.width).max() ?? 0
        // Names give way first, down to a readable width; then the chart, down to its minimum; then the names again.
        let marker = 2
        // `done/total` of the project's tasks after the due date, when any project has tasks and the width allows.
        let progress = dated.map { project in
            project.taskProgress.flatMap { $0.total > 0 ? " \($0.done)/\($0.total)" : nil } ?? ""
        }
        let progressWidth = progress.map(\.count).max() ?? 0
        let showsProgress =
            progressWidth > 0 && width - 1 - Self.dueWidth - progressWidth >= Self.minimumName + Self.minimumChart
        let fixed = 1 + Self.dueWidth + (showsProgress ? progressWidth : 0)
        let wanted = min(longest + marker, 40)
        var nameWidth = max(min(wanted, Self.readableName), min(wanted, width - fixed - days))
        var chartWidth = min(days, width - fixed - nameWidth)
        if chartWidth < Self.minimumChart {
            nameWidth = max(Self.minimumName, width - fixed - Self.minimumChart)
            chartWidth = max(Self.minimumChart, width - fixed - nameWidth)
        }
        // Whole columns a day when there is room for more than one.
        chartWidth = max(chartWidth, days * ((width - fixed - nameWidth) / days))
        let columns = chartWidth
        func column(_ day: Int) -> Int { day * columns / days }
        let weekColumns = Set((0..<weeks).map { column($0 * 7) })
        let todayColumn = column(today.dayNumber - start.dayNumber)

        var text = ruler(columns: columns, weekColumns: weekColumns, todayColumn: todayColumn, nameWidth: nameWidth)
        for (offset, (project, name)) in zip(dated, names).enumerated() {
            let due = project.due!
            let isOverdue = due < today
            var cells = (0..<columns).map { index -> Character in
                index == todayColumn ? glyphs.today : weekColumns.contains(index) ? glyphs.week : " "
            }
            let dueDay = due.dayNumber - start.dayNumber
            let kickoffDay = max(0, (project.kickoff?.dayNumber ?? start.dayNumber) - start.dayNumber)
            if dueDay < 0 {
                cells[0] = glyphs.before
            } else if kickoffDay >= days {
                cells[columns - 1] = glyphs.beyond
            } else {
                let first = column(min(kickoffDay, dueDay))
                let last = column(min(dueDay, days - 1))
                for index in first...last { cells[index] = glyphs.bar }
                cells[last] = dueDay >= days ? glyphs.beyond : glyphs.due
            }
            let label =
                (isOverdue ? "! " : "  ") + TextCells.fit(name, nameWidth - marker, ellipsis: String(glyphs.cut))
            let bar = String(cells)
            let dueText = " " + String(due.description.suffix(5))
            text += isOverdue ? style.red(label + " " + bar + dueText) : label + " " + bar + dueText
            if showsProgress { text += style.dim(progress[offset]) }
            text += "\n"
        }
        return text
    }

    /// Two lines above the rows: each week's Monday as `MM-DD` where it fits, then the ticks with today marked.
    private func ruler(columns: Int, weekColumns: Set<Int>, todayColumn: Int, nameWidth: Int) -> String {
        var labels = [Character](repeating: " ", count: columns)
        var free = 0
        for week in 0..<weeks {
            let index = week * 7 * columns / days
            let label = Array(CalendarDate(dayNumber: start.dayNumber + week * 7).description.suffix(5))
            guard index >= free, index + label.count <= columns else { continue }
            for (offset, character) in label.enumerated() { labels[index + offset] = character }
            free = index + label.count + 1
        }
        let ticks = (0..<columns).map { index -> Character in
            index == todayColumn ? glyphs.ruleToday : weekColumns.contains(index) ? glyphs.ruleWeek : glyphs.rule
        }
        let pad = String(repeating: " ", count: nameWidth + 1)
        return pad + String(labels) + "\n" + pad + String(ticks) + " due\n"
    }
}
