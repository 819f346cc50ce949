import Testing
import TrackerModel

@testable import TrackerOperations

/// Which assistant writes wait for a person, and how long a plan waits.
@Suite struct ApprovalPolicyTests {
    private func changes(_ kind: JournalEntry.Change.Kind, _ count: Int) -> [JournalEntry.Change] {
        (0..<count).map { JournalEntry.Change(kind: kind, id: "rec\($0)") }
    }

    /// serve holds deletions and changes; stdio holds nothing of ten records or fewer.
    @Test func theFacesDefaults() {
        #expect(ApprovalPolicy.serve.holds(changes(.delete, 1), touched: 0))
        #expect(ApprovalPolicy.serve.holds(changes(.update, 1), touched: 0))
        #expect(!ApprovalPolicy.serve.holds(changes(.create, 1), touched: 0))
        #expect(!ApprovalPolicy.stdio.holds(changes(.delete, 10), touched: 0))
    }

    /// More than ten records in one call wait whatever their kind, counted over the call's writes (broken by counting
    /// each write alone: eleven updates sent as two writes would go through).
    @Test func moreThanTenRecordsWaitAcrossTheCall() {
        #expect(ApprovalPolicy.stdio.holds(changes(.create, 11), touched: 0))
        let call = PlannedWrites()
        #expect(!call.holds(changes(.update, 6), policy: .stdio))
        #expect(call.holds(changes(.update, 5), policy: .stdio), "6 + 5 records: the second write waits")
        #expect(call.holds(changes(.create, 1), policy: .stdio), "and every write after it")
    }

    /// The setting's words, `all`, and a typo refused.
    @Test func theSettingsWords() {
        #expect(ApprovalPolicy.named(["add", "comment"])?.kinds == [.create, .comment])
        #expect(ApprovalPolicy.named(["all"])?.kinds.count == 5)
        #expect(ApprovalPolicy.named([])?.kinds == [])
        #expect(ApprovalPolicy.named(["delete", "udpate"]) == nil)
    }

    /// A plan waits ten minutes: pending (or conflicted) then expired; applied and rejected stay so.
    @Test func aPlanExpiresAfterTenMinutes() {
        var approval = Approval(expires: 1000 + Approval.lifetime)
        #expect(approval.status(at: 1000) == .pending)
        #expect(approval.status(at: 1000 + Approval.lifetime + 1) == .expired)
        approval.status = .conflicted
        #expect(approval.status(at: 1000 + Approval.lifetime + 1) == .expired)
        approval.status = .applied
        #expect(approval.status(at: 1000 + Approval.lifetime + 1) == .applied)
    }

    /// A plan kept and read back is the same plan (its approval, its changes).
    @Test func aPlanRoundTripsThroughTheJournal() throws {
        var entry = JournalEntry(
            id: JournalEntry.newApprovalID(), at: 1, user: "usrA", face: "serve", command: "delete_project",
            table: "Design projects", changes: changes(.delete, 2), state: .planned)
        entry.approval = Approval(expires: 601)
        entry.approval?.conflicts = ["rec0: \"Notes\" is now \"x\""]
        #expect(JournalEntry(json: entry.json) == entry)
        #expect(JournalEntry.isApprovalID(entry.id) && !JournalEntry.isID(entry.id))
    }

    /// An expired approval is not made (66), nor a rejected one; an applied one says so and writes nothing.
    @Test func aSettledApprovalIsNeverMade() throws {
        var entry = JournalEntry(
            id: JournalEntry.newApprovalID(), at: 0, user: nil, face: "mcp", command: "update_project",
            table: "Design projects", changes: changes(.update, 1), state: .planned)
        entry.approval = Approval(expires: Approval.lifetime)
        #expect(try Approve.settled(entry, at: 10) == nil)
        #expect(throws: AppError.self) { try Approve.settled(entry, at: Approval.lifetime + 1) }
        do {
            _ = try Approve.settled(entry, at: Approval.lifetime + 1)
        } catch let error as AppError {
            #expect(error.exitCode == .notFound)
        }
        entry.approval?.status = .applied
        #expect(try Approve.settled(entry, at: Approval.lifetime + 1)?.already == true)
    }
}
