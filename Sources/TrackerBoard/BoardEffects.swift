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
import CTerminal
import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerOperations
import TrackerSystem

/// What the board does for a key: the writes, the card opened, who "mine" is.
extension OpenBoard {
    // MARK: - Effects

    /// Carries out what a key asked for; a write shows at once and is undone if Airtable refuses it.
    mutating func carryOut(_ effect: BoardModel.Effect) {
        switch effect {
        case .none, .quit, .suspend, .redrawAll: return
        case .refresh:
            model.message = reading ? Self.alreadyReading : Self.reading
            startReading(first: false)
        case .openCard(let id): openCard(id)
        case .readApprovals: readApprovals()
        case .openInBrowser(let id):
            // The address is asked for; the browser is started here, so a machine without one says what to set
            // rather than claiming it opened.
            let openInBrowser = host.openInBrowser
            call(
                Open(target: .project(id), printsOnly: true),
                success: { page in
                    openInBrowser(page.address)
                        ? "Opened in the browser."
                        : "No browser to open \(page.address) with; set BROWSER, or install xdg-utils."
                }, undo: nil)
        case .setProjectDone(let id, let name, let done):
            let was = model.cards[id]?.complete ?? !done
            model.update(id) { $0.complete = done }
            model.message = "Marking \"\(name)\" \(done ? "done" : "open")…"
            call(
                SetCompletion(complete: done, targets: [id]),
                success: { _ in "Marked \"\(name)\" \(done ? "done" : "open again")." },
                undo: .project(id, complete: was), failing: "Could not mark \"\(name)\" \(done ? "done" : "open")")
        case .setTaskDone(let projectID, let taskID, let name, let done):
            setTask(taskID, of: projectID, done: done)
            model.message = "Ticking \"\(name)\"…"
            call(
                TaskCompletion(tasks: [taskID], complete: done),
                success: { _ in done ? "Ticked \"\(name)\" done." : "\"\(name)\" is open again." },
                undo: .task(projectID: projectID, taskID: taskID, done: !done),
                failing: "Could not tick \"\(name)\"")
        case .undoLast(let id, let name):
            model.message = "Undoing the last write to \"\(name)\"…"
            let reopen = model.screen == .card && model.card?.id == id
            call(
                Undo(touching: id, confirmed: true),
                success: { outcome in
                    if let by = outcome.alreadyUndoneBy { return "\(outcome.entry.id) was already undone (by \(by))." }
                    let made = outcome.plan?.madeAgain.first.map { " It is \($0.now) now." } ?? ""
                    return "Undid \(outcome.entry.command) (\(outcome.entry.id)) on \"\(name)\".\(made)"
                }, undo: nil, failing: "Could not undo on \"\(name)\"", then: reopen ? id : nil)
            startReading(first: false)
        case .comment(let id, let name, let text):
            model.message = "Sending the comment…"
            let reopen = model.screen == .card && model.card?.id == id
            call(
                Comment(target: .project(id), source: .text(text)), success: { _ in "Commented on \"\(name)\"." },
                undo: nil, failing: "Could not comment on \"\(name)\"", then: reopen ? id : nil)
        }
    }

    /// A task ticked or opened on screen: on the open card and in its card's count.
    mutating func setTask(_ taskID: String, of projectID: String, done: Bool) {
        if var card = model.card, card.id == projectID, let index = card.tasks.firstIndex(where: { $0.id == taskID }) {
            let was = card.tasks[index].done
            card.tasks[index].done = done
            model.card = card
            if was != done {
                model.update(projectID) { card in
                    if let tasks = card.tasks { card.tasks = (tasks.done + (done ? 1 : -1), tasks.total) }
                }
            }
        }
    }

    /// Runs one operation as the command line would, once: a key press is never sent twice.
    func call<O: Operation>(
        _ operation: O, success: @escaping @Sendable (O.Outcome) -> String, undo: BoardUndo?,
        failing: String = "Could not do it", then reopen: String? = nil
    ) {
        let host = self.host
        let input = self.input
        let said = self.said
        Task {
            do {
                let outcome = try await host.opener.perform(operation)
                input.yield(.written(message: success(outcome), undo: nil))
                if let reopen { Self.readCard(reopen, host: host, input: input, width: BoardTerminal.size().width) }
            } catch {
                let message = (error as? AppError)?.message ?? "\(error)"
                said.forget()
                input.yield(.written(message: "\(failing): \(message)", undo: undo))
            }
        }
    }

    /// Reads what waits for this person's approval (the journal only: no request to Airtable), for the header and `a`.
    func readApprovals() {
        let (host, input) = (self.host, self.input)
        Task {
            guard let waiting = try? await host.opener.perform(Approvals()) else { return }
            let now = host.now().timeIntervalSince1970
            input.yield(
                .approvals(
                    waiting.map { entry in
                        ApprovalLine(
                            id: entry.id, what: entry.approvalSummary(at: now).joined(separator: " · "),
                            diff: entry.diffLines)
                    }))
        }
    }

    /// Asks once who the token's user is, for "mine" (remembered with the schema after that).
    mutating func findMe() {
        guard !askingMe else { return }
        askingMe = true
        let knowledge = session.knowledge
        let input = self.input
        Task {
            let me = try? await knowledge.me()
            input.yield(.me(me))
        }
    }

    mutating func openCard(_ id: String) {
        Self.readCard(id, host: host, input: input, width: screen.width)
    }

    /// Reads a card as `show` shows it on a terminal of the board's width, its tasks as the Tasks table has them.
    package static func readCard(_ id: String, host: BoardHost, input: AsyncStream<BoardEvent>.Continuation, width: Int)
    {
        Task {
            var detail = CardDetail(id: id, name: id)
            do {
                let read = try await host.opener.perform(Show(target: id, comments: true, forTerminal: true))
                detail = CardDetail(read, target: id, width: max(20, width - 2), host: host)
            } catch {
                detail.failure = (error as? AppError)?.message ?? "\(error)"
            }
            detail.isLoading = false
            input.yield(.card(detail))
        }
    }
}
