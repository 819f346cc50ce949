import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct FormulaTests {
    static let today = CalendarDate("2026-11-21")!

    @Test(arguments: [
        (ProjectFilters(), nil),
        (ProjectFilters(complete: true), "{Complete}"),
        (ProjectFilters(complete: false), "NOT({Complete})"),
        (ProjectFilters(overdue: true), "AND({Due date}, NOT({Complete}), IS_BEFORE({Due date}, '2026-11-21'))"),
        (
            ProjectFilters(dueWithinDays: 7),
            "AND({Due date}, NOT(IS_BEFORE({Due date}, '2026-11-21')), NOT(IS_AFTER({Due date}, '2026-11-27')))"
        ),
        (ProjectFilters(category: "Brand identity"), "LOWER({Category}) = LOWER('Brand identity')"),
        (ProjectFilters(lead: "Gal Samari"), "LOWER({Project lead}) = LOWER('Gal Samari')"),
        (ProjectFilters(lead: "gal@example.com"), nil),
        (
            ProjectFilters(search: "it's"),
            "OR(FIND(LOWER('it\\'s'), LOWER({Name})), FIND(LOWER('it\\'s'), LOWER({Notes})))"
        ),
        (
            ProjectFilters(complete: false, category: "x'), TRUE(), ('"),
            "AND(NOT({Complete}), LOWER({Category}) = LOWER('x\\'), TRUE(), (\\''))"
        ),
    ])
    func filtersBecomeOneFormula(filters: ProjectFilters, formula: String?) {
        #expect(Formula.selection(filters, today: Self.today, fields: .template).formula == formula)
    }

    /// Whatever the input, the literal is one quoted token: it starts and ends with a quote and every inner quote
    /// is escaped, so the formula parser can only read it as a string.
    @Test(arguments: ["x'), TRUE(), ('", #"x"), TRUE(), (""#, "\\", "\\'", "'\\", "a\nb", "''''", "{Name}", "🙂'"])
    func literalsCannotBeClosedFromInside(value: String) {
        let literal = Formula.literal(value)
        #expect(literal.hasPrefix("'") && literal.hasSuffix("'"))
        var escaped = false
        for character in literal.dropFirst().dropLast() {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                #expect(character != "'" && character != "\n", "\(literal)")
            }
        }
        #expect(!escaped, "a trailing backslash would escape the closing quote: \(literal)")
    }
}

@Suite struct PeopleFilterTests {
    static let me = "usrME0000000000001"
    static let other = Collaborator(id: "usrOTHER000000001", name: "Sam Epps", email: "sam@example.com")
    static let mine = Collaborator(id: me, name: "Ana Diaz", email: "ana@example.com")

    static func project(lead: Collaborator?, team: [Collaborator]) -> Project {
        Project(id: "recA", createdTime: "", lead: lead, team: team)
    }

    @Test func mineIsLeadOrTeamByUserIdAndNamesMatchWhole() throws {
        let keep = try #require(ProjectFilters(mine: true).localMatch(me: Self.me))
        #expect(keep(Self.project(lead: Self.mine, team: [])))
        #expect(keep(Self.project(lead: Self.other, team: [Self.other, Self.mine])))
        #expect(!keep(Self.project(lead: Self.other, team: [Self.other])))
        // Same name and email, another user: ids decide.
        let lookalike = Collaborator(id: "usrLOOKALIKE00001", name: "Ana Diaz", email: "ana@example.com")
        #expect(!keep(Self.project(lead: lookalike, team: [])))
        let team = try #require(ProjectFilters(team: "sam epps").localMatch(me: nil))
        #expect(team(Self.project(lead: nil, team: [Self.other])))
        let partOfAName = try #require(ProjectFilters(team: "sam").localMatch(me: nil))
        #expect(!partOfAName(Self.project(lead: nil, team: [Self.other])))
        #expect(ProjectFilters(lead: "Sam Epps").localMatch(me: nil) == nil, "a lead's name is matched by Airtable")
        #expect(
            ProjectFilters(lead: "me").needsMe && ProjectFilters(team: "Me").needsMe
                && !ProjectFilters(team: "x").needsMe)
    }

    @Test func formulasNarrowByTeamNameAndMineNeedsALeadOrATeam() {
        let formula = Formula.selection(
            ProjectFilters(team: "O'Brien", mine: true), today: CalendarDate("2026-11-24")!, fields: .template
        ).formula
        #expect(formula == "AND(FIND(LOWER('O\\'Brien'), LOWER({Project team})), OR({Project lead}, {Project team}))")
        #expect(
            Formula.selection(ProjectFilters(lead: "me"), today: CalendarDate("2026-11-24")!, fields: .template).formula
                == nil)
    }
}
