#if os(Linux)
    import Foundation
    import Testing

    @testable import FakeAirtable
    @_spi(Writing) @testable import TrackerAPI
    @testable import TrackerModel

    /// What the poller tells the team's copy a refresh changed.
    extension BaseCopyTests {
        /// A record made and deleted elsewhere between two refreshes (it may be in the team's copy, put there by
        /// another process's write) is sent as gone though this copy never held it (broken by a report that keeps only
        /// the deletions of records the copy knew: the record stayed in Redis for good).
        @Test func aDeletionOfARecordThisCopyNeverSawIsSent() async throws {
            let mirror = try Mirror()
            _ = try await mirror.projects()
            let made = try await mirror.other("POST", mirror.projectsPath, ["fields": ["Name": "Made and gone"]])
            let id = try #require(made["id"] as? String)
            try await mirror.other("DELETE", mirror.projectsPath + "?records[]=\(id)")
            let report = try await mirror.copy.pollForTeam(whole: false)
            #expect(report.changes.deleted[.projects]?.contains(id) == true)
            #expect(report.changes.deleted[.tasks]?.contains(id) == true, "its table is not known: every table is told")
        }
    }
#endif
