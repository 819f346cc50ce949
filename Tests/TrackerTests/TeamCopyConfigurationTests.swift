import Foundation
import Testing

import TrackerModel
@testable import TrackerOperations

/// `"teamCopy"`, `TRACKER_TEAM_COPY`, `"teamCopyEvery"` and `"maxAge"`: off unless asked, since the copy puts the base's
/// records in the team's Redis, and never on without one.
extension ConfigurationTests {
    private static func file(_ members: String) -> String {
        #"{"token": "\#(token)", "baseId": "appABCDEFGHIJKLMN", "table": "Design projects"\#(members)}"#
    }

    @Test func theTeamsCopyIsOffUnlessAskedAndNeedsARedis() throws {
        let plain = try directory(["work/Secrets.json": Self.file(#", "redis": "redis://cache""#)])
        #expect(try load(plain).get().teamCopy == false)
        let asked = try directory(["work/Secrets.json": Self.file(#", "redis": "redis://cache", "teamCopy": true"#)])
        let on = try load(asked).get()
        #expect(on.teamCopy && on.teamCopyEvery == 10 && on.maxAge == nil)
        // TRACKER_TEAM_COPY=0 turns it off for one process; =1 turns it on.
        #expect(try load(asked, environment: ["TRACKER_TEAM_COPY": "0"]).get().teamCopy == false)
        #expect(try load(plain, environment: ["TRACKER_TEAM_COPY": "1"]).get().teamCopy)
        // Asked for without a team Redis: a configuration error that says how to set one.
        let noRedis = try directory(["work/Secrets.json": Self.file(#", "teamCopy": true"#)])
        let refused = try #require(load(noRedis).failure)
        #expect(refused.exitCode == .configuration)
        #expect(refused.message.contains("no team Redis is set"))
        #expect(
            try #require(load(plain, environment: ["TRACKER_TEAM_COPY": "1", "TRACKER_REDIS_URL": ""]).failure)
                .message.contains("no team Redis"))
    }

    @Test func theCopysPaceAndAgeAreSecondsInRange() throws {
        let set = try directory([
            "work/Secrets.json": Self.file(
                #", "redis": "redis://cache", "teamCopy": true, "teamCopyEvery": 3, "maxAge": 45"#)
        ])
        let loaded = try load(set).get()
        #expect(loaded.teamCopyEvery == 3 && loaded.maxAge == 45)
        for bad in [#""teamCopyEvery": 0"#, #""teamCopyEvery": "10""#, #""maxAge": -1"#, #""teamCopy": "yes""#] {
            let root = try directory(["work/Secrets.json": Self.file(#", "redis": "redis://cache", "# + bad)])
            #expect(load(root).failure?.exitCode == .configuration, "\(bad)")
        }
        #expect(load(set, environment: ["TRACKER_TEAM_COPY": "maybe"]).failure?.message.contains("1 or 0") == true)
    }
}

/// The copy's keys hold how completion is kept as `String(describing:)` always wrote it: written without reflection now,
/// they must not change, or every team's copy would be read whole again and two versions would poll two copies.
struct TeamCopyLayoutNamesTests {
    @Test func completionIsDescribedAsReflectionDescribedIt() {
        let kinds: [CompletionField?] = [
            nil, .checkbox(field: "Complete"), .checkbox(field: "Fini \"à\" \\ temps\n"),
            .select(field: "Status", done: "Done", open: nil), .select(field: "État", done: "Fait ✅", open: "Ouvert"),
        ]
        for kind in kinds {
            #expect(Session.described(kind) == String(describing: kind))
        }
    }
}
