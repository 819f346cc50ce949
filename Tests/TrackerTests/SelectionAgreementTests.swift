#if os(Linux)
    import Foundation
    import Testing

    @testable import FakeAirtable
    @testable import TrackerAPI
    @testable import TrackerModel
    @testable import TrackerNetwork

    /// Each filter is defined once, as the formula Airtable evaluates and the predicate a face's copy applies: on the
    /// recorded template and on a big base, the two pick the same records (the fake evaluates the formulas).
    @Suite(.timeLimit(.minutes(2)))
    struct SelectionAgreementTests {
        final class Base: Sendable {
            let fake: FakeAirtable
            let client: ProjectAPIClient
            let tasks = TaskTable(route: FakeTasks.tableID, name: "Tasks", fields: .template)

            init(records: [[String: Any]], tasks: [FakeTaskSpec]?) throws {
                var options = FakeAirtable.Options()
                options.tasks = tasks
                fake = FakeAirtable(options: options, records: records)
                try fake.start()
                client = .of(fake, through: try #require(CurlTransport(), "libcurl could not be loaded"))
            }

            deinit { fake.stop() }

            func projects(_ formula: String?) async throws -> [Project] {
                var found: [Project] = []
                try await client.listProjects(ListQuery(filterByFormula: formula)) { found += $0 }
                return found
            }

            func tasks(_ formula: String?) async throws -> [ProjectTask] {
                var found: [ProjectTask] = []
                try await client.listTasks(in: tasks, ListQuery(filterByFormula: formula)) { found += $0 }
                return found
            }
        }

        static let today = CalendarDate(FakeDates.today())!

        /// Filters of every kind, with values taken from the base itself and a few no record has.
        static func projectFilters(_ all: [Project]) -> [ProjectFilters] {
            var list: [ProjectFilters] = [ProjectFilters()]
            func with(_ change: (inout ProjectFilters) -> Void) {
                var filters = ProjectFilters()
                change(&filters)
                list.append(filters)
            }
            with { $0.overdue = true }
            with { $0.complete = true }
            with { $0.complete = false }
            with { $0.dueBefore = CalendarDate(dayNumber: today.dayNumber + 3) }
            with { $0.dueWithinDays = 7 }
            with { $0.dueWithinDays = 0 }
            with { $0.mine = true }
            with {
                $0.overdue = true
                $0.complete = false
                $0.search = "project 0001"
            }
            for category in Set(all.compactMap(\.category)) + ["brand IDENTITY", "nothing like it"] {
                with { $0.category = category }
            }
            for lead in Set(all.compactMap { $0.lead?.name }).sorted().prefix(3) + ["NOBODY"] {
                with { $0.lead = lead.uppercased() }
            }
            for member in Set(all.flatMap { $0.team.compactMap(\.name) }).sorted().prefix(3) {
                with { $0.team = member.lowercased() }
            }
            for search in ["coffee", "ÜNÏCÖDÉ", "it's", "\"quotes\"", "0000", "x' , TRUE()"] {
                with { $0.search = search }
            }
            return list
        }

        static func taskFilters(_ all: [ProjectTask]) -> [TaskFilters] {
            var list: [TaskFilters] = []
            for state in [TaskFilters.State.open, .done, .all] {
                list.append(TaskFilters(state: state))
                list.append(TaskFilters(state: state, search: "review"))
                for name in Set(all.compactMap { $0.assignee?.name }).sorted().prefix(2) {
                    list.append(TaskFilters(state: state, assignee: name.lowercased()))
                }
                list.append(TaskFilters(state: state, assignee: "someone@example.com"))
            }
            return list
        }

        func agree(on base: Base) async throws {
            let projects = try await base.projects(nil)
            #expect(!projects.isEmpty)
            for filters in Self.projectFilters(projects) {
                let selection = Formula.selection(filters, today: Self.today, fields: .template)
                let byFormula = try await base.projects(selection.formula).map(\.id)
                let byPredicate = projects.filter(selection.keeps).map(\.id)
                #expect(Set(byFormula) == Set(byPredicate), "\(filters)")
            }
            // The digest's, status's and clients' selections, with "completed since" as Airtable answers it.
            for since in ["2015-06-01T00:00:00.000Z", ISOInstant.text(Date().addingTimeInterval(-7 * 86_400))] {
                let lately = Set(
                    try await base.projects(Formula.completedSince(since, fields: .template)).map(\.id))
                let last = CalendarDate(dayNumber: Self.today.dayNumber + 7)
                for selection in [
                    Formula.digestSelection(
                        today: Self.today, days: 7, since: since, fields: .template, completedLately: lately),
                    Formula.statusSelection(since: since, last: last, fields: .template),
                    Selection(formula: Formula.field("Client")) { !$0.clients.isEmpty },
                ] {
                    let byFormula = try await base.projects(selection.formula).map(\.id)
                    #expect(Set(byFormula) == Set(projects.filter(selection.keeps).map(\.id)), "since \(since)")
                }
            }
            let tasks = try await base.tasks(nil)
            for since in ["2015-06-01T00:00:00.000Z", ISOInstant.text(Date().addingTimeInterval(-7 * 86_400))] {
                let selection = Formula.statusTaskSelection(since: since, fields: .template)
                let byFormula = try await base.tasks(selection.formula).map(\.id)
                #expect(Set(byFormula) == Set(tasks.filter(selection.keeps).map(\.id)), "since \(since)")
            }
            #expect(!tasks.isEmpty)
            for filters in Self.taskFilters(tasks) {
                let selection = Formula.taskSelection(filters, fields: .template)
                let byFormula = try await base.tasks(selection.formula).map(\.id)
                let byPredicate = tasks.filter(selection.keeps).map(\.id)
                #expect(Set(byFormula) == Set(byPredicate), "\(filters)")
            }
        }

        @Test func formulasAndPredicatesPickTheSameOnTheRecordedTemplate() async throws {
            try await agree(on: Base(records: FakeAirtable.recordedProjects, tasks: nil))
        }

        @Test func formulasAndPredicatesPickTheSameOnABigBase() async throws {
            try await agree(
                on: Base(
                    records: FakeAirtable.recordedProjects + FakeAirtable.generatedProjects(count: 1000),
                    tasks: FakeAirtable.generatedTasks(count: 3000, projects: 1000)))
        }
    }
#endif
