import Testing

@testable import FakeAirtable

/// The fake's dates: read by bytes in the common forms, by splitting in the rest, the same answer either way.
@Suite(.timeLimit(.minutes(1)))
struct FakeDatesTests {
    @Test(
        arguments: [
            ("2026-11-24", 20_781 * 86_400.0),
            ("2026-11-24T09:30:05.000Z", 20_781 * 86_400.0 + 9 * 3600 + 30 * 60 + 5),
            ("2026-11-24T09:30:05Z", 20_781 * 86_400.0 + 9 * 3600 + 30 * 60 + 5),
            ("1970-01-01", 0),
            ("2026-11-24 and more", 20_781 * 86_400.0),
            ("2026-11-24T9:30:05Z", nil),
            ("2026-1-24", nil),
            ("2026/11/24", nil),
            ("", nil),
            ("soon", nil),
        ] as [(String, Double?)])
    func instantsAreReadInEveryForm(text: String, expected: Double?) {
        #expect(FakeDates.instant(text) == expected)
    }

    @Test func dayNumbersRoundTrip() {
        for day in [-719_468, -1, 0, 1, 20_781, 2_932_896] {
            #expect(FakeDates.dayNumber(FakeDates.string(dayNumber: day)) == day)
        }
        #expect(FakeDates.dayNumber("2026-11-24T23:59:59.000Z") == 20_781)
        #expect(FakeDates.dayNumber("20261124") == nil)
    }
}

/// The fake's fast path for records read by id answers as evaluating the formula would.
@Suite struct FakeRecordIDFormulaTests {
    @Test(arguments: [
        ("RECORD_ID() = 'recA'", Set(["recA"])),
        ("OR(RECORD_ID() = 'recA', RECORD_ID() = 'recB')", Set(["recA", "recB"])),
    ])
    func idsAreRead(formula: String, ids: Set<String>) {
        #expect(FakeAirtable.recordIDs(in: formula) == ids)
    }

    @Test(arguments: [
        "AND(RECORD_ID() = 'recA', {Name})", "OR(RECORD_ID() = 'recA', {Name} = 'x')", "RECORD_ID() = 'a\\'b'",
        "OR(RECORD_ID() = 'recA', RECORD_ID() = 'rec B')", "TRUE()", "",
    ])
    func anythingElseIsEvaluated(formula: String) {
        #expect(FakeAirtable.recordIDs(in: formula) == nil)
    }
}
