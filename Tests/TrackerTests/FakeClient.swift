#if os(Linux)
    import Foundation

    @testable import FakeAirtable
    @testable import TrackerAPI
    @testable import TrackerNetwork

    extension ProjectAPIClient {
        /// A client of the running `fake` through `transport` (libcurl), unpaced, retrying for 5 s: what the tests of
        /// live listings and of a face's copy read with.
        static func of(_ fake: FakeAirtable, through transport: CurlTransport) -> ProjectAPIClient {
            let network = NetworkHelper(
                transport: transport, timeoutSeconds: 10, policy: RetryPolicy(budgetSeconds: 5),
                pacer: UnlimitedPacer(), rules: ProjectAPIClient.rules)
            return ProjectAPIClient(
                access: BaseAccess(
                    token: fake.options.token, baseID: fake.options.baseID, table: fake.options.table,
                    endpoint: URL(string: fake.endpoint)!),
                network: network)
        }
    }
#endif
