import TrackerModel
import TrackerOperations

/// The board as a person sees it: the cards in their columns, what is selected, what is typed, what the bottom line
/// says. Pure: keys go in, effects for the loop to carry out come out; the screen is drawn from it by `BoardScreen`.
package struct BoardModel {
    package var today: CalendarDate
    private(set) var cards: [String: BoardCard] = [:]
    /// Changes whenever the cards do, so the columns are sorted again only then.
    private var generation = 0
    private var cache: (generation: Int, search: String, mine: Bool, columns: [[BoardCard]])?

    package var selectedColumn = 0
    /// The selected card's id in each column, kept when cards move around it.
    package var selected: [String?] = Array(repeating: nil, count: BoardCard.Column.allCases.count)
    private var rowHints = Array(repeating: 0, count: BoardCard.Column.allCases.count)
    /// The first card shown in each column.
    package var scroll = Array(repeating: 0, count: BoardCard.Column.allCases.count)
    package var search = ""
    package var mineOnly = false
    /// The token's user id, once known: "mine" is decided again when it arrives.
    package var me: String? {
        didSet {
            generation += 1
            keepSelectionShown()
        }
    }
    package var screen = Screen.board
    package var input: Input?
    /// The bottom line's message, until the next key.
    package var message: String?
    /// What the last read of the table said when it failed; cleared by the next good read.
    package var readFailure: String?
    /// What a command warned of while the board ran (the team's Redis cannot be used, a slower pace after a 429):
    /// on the bottom line while nothing else is, until a read finds it over.
    package var warning: String?
    package var isLoading = true
    /// When the table was last read in full, as the header says it (`13:04`).
    package var lastRead: String?
    /// What shows deleted projects on the board: `by webhook`, or `every 5 min` (nil before the first read).
    package var deletionsSeen: String?
    /// The team's copy, when the cards come from it (before the deletions: at 80 columns the header's end is cut).
    package var readsFrom: String?
    /// The open card: the project's details as `show` gives them.
    package var card: CardDetail?
    package var showsHelp = false
    /// The assistants' writes waiting for this person's approval, as last read; the header counts them.
    package var approvals: [ApprovalLine] = []
    /// `a`: the approvals listed in place of the board, until the next key.
    package var showsApprovals = false

    package enum Screen: Equatable { case board, card }

    /// A line being typed, or a question, on the bottom line.
    package enum Input: Equatable {
        case search(String)
        case comment(String, projectID: String, name: String)
        case confirmDone(projectID: String, name: String, done: Bool)
        case confirmUndo(projectID: String, name: String)
    }

    /// What the loop does for a key.
    package enum Effect: Equatable {
        case none
        case quit
        case suspend
        case redrawAll
        case openCard(String)
        case setProjectDone(String, name: String, done: Bool)
        case setTaskDone(projectID: String, taskID: String, name: String, done: Bool)
        case comment(String, name: String, text: String)
        /// Undo the newest journal entry that touched the project.
        case undoLast(String, name: String)
        case openInBrowser(String)
        case refresh
        /// Read what waits for approval again (`a` lists it).
        case readApprovals
    }

    package init(today: CalendarDate) { self.today = today }

    // MARK: - Cards

    /// Puts a page of cards on the board (a refresh replaces them with `replacing`).
    package mutating func add(_ page: [BoardCard]) {
        for card in page { cards[card.id] = card }
        generation += 1
        keepSelectionShown()
    }

    /// Replaces every card: a read of the whole table.
    package mutating func replace(with all: [BoardCard]) {
        cards = Dictionary(all.map { ($0.id, $0) }) { _, last in last }
        generation += 1
        keepSelectionShown()
    }

    package mutating func update(_ id: String, _ change: (inout BoardCard) -> Void) {
        guard var card = cards[id] else { return }
        change(&card)
        cards[id] = card
        generation += 1
    }

    /// Each column's cards, in order, narrowed by the search and "mine"; sorted again only when something changed.
    package mutating func columns() -> [[BoardCard]] {
        if let cache, cache.generation == generation, cache.search == search, cache.mine == mineOnly {
            return cache.columns
        }
        var columns = Array(repeating: [BoardCard](), count: BoardCard.Column.allCases.count)
        let needle = search.lowercased()
        for card in cards.values {
            if !needle.isEmpty && !card.name.lowercased().contains(needle) { continue }
            if mineOnly && !card.isMine(me) { continue }
            columns[card.column(today: today).rawValue].append(card)
        }
        for column in BoardCard.Column.allCases {
            let keyed = columns[column.rawValue].map { ($0.sortKey(in: column), $0) }
            columns[column.rawValue] = keyed.sorted { $0.0 < $1.0 }.map(\.1)
        }
        cache = (generation, search, mineOnly, columns)
        return columns
    }

    /// The selected card's position in its column (the first when none is selected or it has gone).
    package mutating func selectedRow(in column: Int) -> Int {
        let cards = columns()[column]
        guard let id = selected[column] else { return 0 }
        // Where it was last time, unless cards moved: a key press on 50,000 cards looks at one, not all.
        let hint = rowHints[column]
        if cards.indices.contains(hint), cards[hint].id == id { return hint }
        // A card that has gone leaves the selection where it was: the card that took its place.
        guard let row = cards.firstIndex(where: { $0.id == id }) else { return max(0, min(hint, cards.count - 1)) }
        rowHints[column] = row
        return row
    }

    /// The next column from `column` in `step`'s direction that shows a card, skipping empty ones both ways (an
    /// empty "This week" must not keep Later and Done out of reach); `column` itself when none does.
    private mutating func shownColumn(from column: Int, step: Int) -> Int {
        let columns = columns()
        var next = column + step
        while columns.indices.contains(next) {
            if !columns[next].isEmpty { return next }
            next += step
        }
        return column
    }

    /// When the selected column shows no card (a search, "mine" or a read left it empty), the nearest column that
    /// shows one is selected, so Enter opens the card a person sees.
    package mutating func keepSelectionShown() {
        let columns = columns()
        guard columns[selectedColumn].isEmpty else { return }
        let nearest = columns.indices.filter { !columns[$0].isEmpty }.min {
            (abs($0 - selectedColumn), $0) < (abs($1 - selectedColumn), $1)
        }
        if let nearest { selectedColumn = nearest }
    }

    package mutating func selectedCard() -> BoardCard? {
        let cards = columns()[selectedColumn]
        guard !cards.isEmpty else { return nil }
        return cards[min(selectedRow(in: selectedColumn), cards.count - 1)]
    }

    private mutating func select(row: Int, in column: Int) {
        let cards = columns()[column]
        guard !cards.isEmpty else {
            selected[column] = nil
            return
        }
        let row = max(0, min(row, cards.count - 1))
        selected[column] = cards[row].id
        rowHints[column] = row
    }

    // MARK: - Keys

    /// Handles one key; `pageSize` is how many cards a column shows.
    package mutating func handle(_ key: Key, pageSize: Int) -> Effect {
        if key == .interrupt { return .quit }
        if key == .suspend { return .suspend }
        if key == .redraw { return .redrawAll }
        message = nil
        if showsHelp || showsApprovals {
            (showsHelp, showsApprovals) = (false, false)
            return .none
        }
        defer { keepSelectionShown() }
        if let input { return handleInput(key, input) }
        if key == .character("?") {
            showsHelp = true
            return .none
        }
        switch screen {
        case .board: return handleBoard(key, pageSize: max(1, pageSize))
        case .card: return handleCard(key)
        }
    }

    private mutating func handleBoard(_ key: Key, pageSize: Int) -> Effect {
        let row = selectedRow(in: selectedColumn)
        switch key {
        case .character("q"), .escape:
            if key == .escape && !search.isEmpty {
                search = ""
                return .none
            }
            return key == .escape ? .none : .quit
        case .left, .character("h"): selectedColumn = shownColumn(from: selectedColumn, step: -1)
        case .right, .character("l"), .tab: selectedColumn = shownColumn(from: selectedColumn, step: 1)
        case .up, .character("k"): select(row: row - 1, in: selectedColumn)
        case .down, .character("j"): select(row: row + 1, in: selectedColumn)
        case .pageUp: select(row: row - pageSize, in: selectedColumn)
        case .pageDown: select(row: row + pageSize, in: selectedColumn)
        case .home, .character("g"): select(row: 0, in: selectedColumn)
        case .end, .character("G"): select(row: Int.max / 2, in: selectedColumn)
        case .enter:
            guard let card = selectedCard() else { return .none }
            screen = .card
            self.card = CardDetail(id: card.id, name: card.name)
            return .openCard(card.id)
        case .character("d"):
            guard let card = selectedCard() else { return .none }
            input = .confirmDone(projectID: card.id, name: card.name, done: !card.complete)
        case .character("c"):
            guard let card = selectedCard() else { return .none }
            input = .comment("", projectID: card.id, name: card.name)
        case .character("u"):
            guard let card = selectedCard() else { return .none }
            input = .confirmUndo(projectID: card.id, name: card.name)
        case .character("o"):
            guard let card = selectedCard() else { return .none }
            return .openInBrowser(card.id)
        case .character("/"): input = .search(search)
        case .character("m"):
            mineOnly.toggle()
            message = mineOnly ? "Showing your projects only (m: all)" : "Showing every project"
        case .character("r"): return .refresh
        case .character("a"):
            showsApprovals = true
            return .readApprovals
        default: break
        }
        return .none
    }

    private mutating func handleCard(_ key: Key) -> Effect {
        guard var card else {
            screen = .board
            return .none
        }
        defer { self.card = card }
        switch key {
        case .escape, .character("q"), .backspace:
            screen = .board
            self.card = nil
            return .none
        case .up, .character("k"): card.selectedTask = max(0, card.selectedTask - 1)
        case .down, .character("j"): card.selectedTask = min(max(0, card.tasks.count - 1), card.selectedTask + 1)
        case .pageDown, .character("G"), .end: card.scroll += 10
        case .pageUp, .character("g"), .home: card.scroll = max(0, card.scroll - 10)
        case .character(" "):
            guard card.tasks.indices.contains(card.selectedTask) else { return .none }
            let task = card.tasks[card.selectedTask]
            return .setTaskDone(projectID: card.id, taskID: task.id, name: task.name, done: !task.done)
        case .character("d"):
            let done = !(cards[card.id]?.complete ?? card.complete)
            input = .confirmDone(projectID: card.id, name: card.name, done: done)
        case .character("c"): input = .comment("", projectID: card.id, name: card.name)
        case .character("u"): input = .confirmUndo(projectID: card.id, name: card.name)
        case .character("o"): return .openInBrowser(card.id)
        case .character("r"): return .openCard(card.id)
        default: break
        }
        return .none
    }

    private mutating func handleInput(_ key: Key, _ current: Input) -> Effect {
        switch current {
        case .confirmDone(let id, let name, let done):
            input = nil
            guard key == .character("y") || key == .character("Y") else {
                message = "Nothing changed."
                return .none
            }
            return .setProjectDone(id, name: name, done: done)
        case .confirmUndo(let id, let name):
            input = nil
            guard key == .character("y") || key == .character("Y") else {
                message = "Nothing changed."
                return .none
            }
            return .undoLast(id, name: name)
        case .search(let text):
            switch key {
            case .escape:
                search = ""
                input = nil
            case .enter: input = nil
            case .backspace:
                input = .search(String(text.dropLast()))
                search = String(text.dropLast())
            case .character(let character):
                input = .search(text + String(character))
                search = text + String(character)
            default: break
            }
            return .none
        case .comment(let text, let id, let name):
            switch key {
            case .escape:
                input = nil
                message = "Comment dropped."
            case .enter:
                input = nil
                let trimmed = text.trimmingWhitespace()
                guard !trimmed.isEmpty else {
                    message = "Comment dropped (empty)."
                    return .none
                }
                return .comment(id, name: name, text: trimmed)
            case .backspace: input = .comment(String(text.dropLast()), projectID: id, name: name)
            case .character(let character): input = .comment(text + String(character), projectID: id, name: name)
            default: break
            }
            return .none
        }
    }
}

/// An open card: what `show` read of the project, shown whole.
package struct CardDetail: Equatable {
    package var id: String
    package var name: String
    package var isLoading = true
    package var complete = false
    /// Label and value, in the order `show` gives them.
    package var fields: [(String, String)] = []
    package var tasks: [TaskLine] = []
    package var files: [String] = []
    package var comments: [String] = []
    package var selectedTask = 0
    /// Lines scrolled past with PgDn (the selected task stays in view whatever it is).
    package var scroll = 0
    package var failure: String?

    package struct TaskLine: Equatable {
        package var id: String
        package var name: String
        package var done: Bool
        package var assignee: String?
        package var estimate: String?
    }

    package static func == (left: CardDetail, right: CardDetail) -> Bool {
        left.id == right.id && left.name == right.name && left.isLoading == right.isLoading
            && left.fields.map(\.0) == right.fields.map(\.0) && left.fields.map(\.1) == right.fields.map(\.1)
            && left.tasks == right.tasks && left.files == right.files && left.comments == right.comments
            && left.selectedTask == right.selectedTask && left.failure == right.failure
    }
}
