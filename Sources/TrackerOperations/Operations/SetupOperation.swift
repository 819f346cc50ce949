import TrackerAPI
import TrackerSystem

/// Work on the configuration itself, before a session can be opened: `doctor` checks it (a configuration that cannot
/// be read is one of its findings), `init` writes it. It is given what a session stands on, not a session; typed
/// options in, a typed outcome out, nothing printed, as for an `Operation`.
package protocol SetupOperation: Sendable {
    associatedtype Outcome: Sendable
    /// Does the work with what the face's sessions would stand on.
    func run(in setup: Setup) async throws -> Outcome
}

/// What a face's sessions stand on, for work that comes before one: the configuration as the face reads it, a client
/// for any configuration, and the surroundings a session in that configuration would have.
package struct Setup: Sendable {
    /// The configuration (the secrets file, the profile, the environment), read as every command reads it.
    package var configuration: @Sendable () throws -> Configuration
    /// A client for `configuration`, paced and shared as the face's sessions are.
    package var client: @Sendable (_ configuration: Configuration) -> ProjectAPIClient
    /// The surroundings of a session in `configuration`: the clocks, the cache, the engine.
    package var surroundings: @Sendable (_ configuration: Configuration) -> SessionSurroundings
    /// The environment the configuration is read from (where the secrets file goes, the endpoint, Redis's CA).
    package var environment: [String: String] = [:]
    /// What a relative path the person gave is relative to.
    package var currentDirectory = "/"
    /// The profile asked for (`--profile`), if any.
    package var profile: String? = nil
    /// Tells the face a secret it must never show (a token, a password), before anything could say it.
    package var conceal: @Sendable (_ secret: String) -> Void = { _ in }

    /// Each capability given.
    package init(
        configuration: @escaping @Sendable () throws -> Configuration,
        client: @escaping @Sendable (Configuration) -> ProjectAPIClient,
        surroundings: @escaping @Sendable (Configuration) -> SessionSurroundings
    ) {
        (self.configuration, self.client, self.surroundings) = (configuration, client, surroundings)
    }

    /// `path` as the person meant it: relative to the directory tracker was started in.
    package func absolutePath(_ path: String) -> String {
        Path.absolute(path, from: currentDirectory)
    }
}
