import Testing
import TrackerModel

@testable import TrackerOperations

/// What undo compares a cell's value now with: the rule that an undo never writes over a change it did not make rests
/// on `same` saying "changed" for every real change, and "the same" only where Airtable means the same value.
@Suite struct JournalCellsTests {
    /// Airtable leaves an empty field out of a record: null, "", [] and an unticked box are one value, and nothing
    /// else is empty (broken by an `isEmpty` that takes 0 for empty: a field set to 0 since would be written over).
    @Test func emptiesAreOneValueAndNothingElseIs() {
        for empty: JSONValue in [.null, .string(""), .array([]), .bool(false)] {
            #expect(JournalCells.same(empty, .null))
            #expect(JournalCells.same(.null, empty))
        }
        for value: JSONValue in [.number(0), .string(" "), .bool(true), .array([.string("rec1")])] {
            #expect(!JournalCells.same(value, .null), "\(value) is not empty")
        }
    }

    /// A person written as `{"email"}` is the one Airtable answers with an id, a name and that email (any case); by id
    /// where both sides say it. Another person is a change.
    @Test func aPersonIsTheSameByIdElseByEmail() {
        let written = JSONValue.object([("email", .string("Gal@Example.com"))])
        let read = JSONValue.object([
            ("id", .string("usrGAL")), ("email", .string("gal@example.com")), ("name", .string("Gal")),
        ])
        #expect(JournalCells.same(read, written))
        let other = JSONValue.object([("id", .string("usrSAM")), ("email", .string("gal@example.com"))])
        #expect(!JournalCells.same(read, other), "the ids differ: another person, whatever the email")
        #expect(!JournalCells.same(.array([read]), .array([read, other])), "a team with one more is a change")
    }

    /// Numbers by value; text exactly (a case change is a change someone made).
    @Test func numbersByValueAndTextExactly() {
        #expect(JournalCells.same(.number(1.5), .number(1.5000000000001)))
        #expect(!JournalCells.same(.number(1.5), .number(1.6)))
        #expect(!JournalCells.same(.string("Proofs"), .string("proofs")))
    }

    /// What a write sends back: a person by id (else email) alone, a file by its address.
    @Test func aCellIsSentBackAsAWriteTakesIt() {
        let person = JSONValue.object([
            ("id", .string("usrGAL")), ("email", .string("gal@example.com")), ("name", .string("Gal")),
        ])
        #expect(JournalCells.writable(person) == .object([("id", .string("usrGAL"))]))
        let file = JSONValue.object([
            ("id", .string("attA")), ("url", .string("https://example.com/a.png")), ("filename", .string("a.png")),
            ("size", .number(10)),
        ])
        #expect(
            JournalCells.writable(file)
                == .object([("url", .string("https://example.com/a.png")), ("filename", .string("a.png"))]))
    }
}
