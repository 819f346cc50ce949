import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker

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
            "AND({Due date}, NOT(IS_BEFORE({Due date}, '2026-11-21')), NOT(IS_AFTER({Due date}, '2026-11-28')))"
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
        #expect(Formula.matching(filters, today: Self.today, fields: .template) == formula)
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
