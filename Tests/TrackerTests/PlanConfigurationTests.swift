import Foundation
import Testing

@testable import TrackerOperations

/// `"plan"`, `"monthlyCalls"`, `TRACKER_PLAN` and `"backgroundShare"`: the month's calls the workspace allows, and the
/// part of them what nobody asked for may use.
extension ConfigurationTests {
    private static func planFile(_ members: String) -> String {
        #"{"token": "\#(token)", "baseId": "appABCDEFGHIJKLMN", "table": "Design projects"\#(members)}"#
    }

    @Test func thePlanIsNamedOrCountedAndTheEnvironmentWins() throws {
        let none = try directory(["work/Secrets.json": Self.planFile("")])
        let unset = try load(none).get()
        #expect(unset.plan == nil && unset.backgroundShare == 0.5)
        let free = try directory(["work/Secrets.json": Self.planFile(#", "plan": "Free", "backgroundShare": 0.25"#)])
        let loaded = try load(free).get()
        #expect(loaded.plan == MonthlyPlan(name: "free", calls: 1_000) && loaded.backgroundShare == 0.25)
        let counted = try directory(["work/Secrets.json": Self.planFile(#", "monthlyCalls": 250000"#)])
        #expect(try load(counted).get().plan == MonthlyPlan(name: "custom", calls: 250_000))
        #expect(try load(free, environment: ["TRACKER_PLAN": "business"]).get().plan?.calls == nil)
        #expect(try load(none, environment: ["TRACKER_PLAN": "team"]).get().plan?.calls == 100_000)
        #expect(try load(none, environment: ["TRACKER_PLAN": "5000"]).get().plan?.calls == 5_000)
    }

    @Test func aPlanTrackerDoesNotKnowIsRefusedNamingTheChoices() throws {
        for bad in [
            #""plan": "gold""#, #""monthlyCalls": -3"#, #""monthlyCalls": 1.5"#, #""plan": "free", "monthlyCalls": 10"#,
            #""backgroundShare": 2"#, #""backgroundShare": 0"#,
        ] {
            let root = try directory(["work/Secrets.json": Self.planFile(", " + bad)])
            let refused = try #require(load(root).failure, "\(bad)")
            #expect(refused.exitCode == .configuration, "\(bad)")
        }
        let none = try directory(["work/Secrets.json": Self.planFile("")])
        let refused = try #require(load(none, environment: ["TRACKER_PLAN": "platinum"]).failure)
        #expect(refused.message.contains("TRACKER_PLAN must name a plan"), "\(refused.message)")
    }
}
