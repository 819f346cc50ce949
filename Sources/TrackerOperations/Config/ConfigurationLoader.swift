#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// Builds a `Configuration` from the secrets file and environment overrides, checking every value once.
package enum ConfigurationLoader {
    /// Resolves the configuration; `warn` receives one-line warnings such as a file readable by others.
    package static func load(
        secretsFlag: String?, profile: String? = nil, environment: [String: String], currentDirectory: String,
        warn: (String) -> Void
    ) -> Result<Configuration, AppError> {
        let file: SecretsFile?
        switch SecretsFile.locate(flag: secretsFlag, environment: environment, currentDirectory: currentDirectory) {
        case .success(let found): file = found
        case .failure(let error): return .failure(error)
        }
        if let file, Configuration.isReadableByOthers(mode: file.mode) { warn(readableWarning(file.path)) }
        let searched = SecretsFile.candidates(
            flag: secretsFlag, environment: environment, currentDirectory: currentDirectory
        ).map(\.path)
        let chosen: String?
        switch choose(profile: profile, environment: environment, file: file, searched: searched) {
        case .success(let name): chosen = name
        case .failure(let error): return .failure(error)
        }
        return Resolver(file: file, profile: chosen, environment: environment, searched: searched).resolve()
    }

    /// The profile to use: `--profile`, else `TRACKER_PROFILE`, else the file's `"default"`, else its only profile;
    /// nil for a file without profiles.
    package static func choose(
        profile flag: String?, environment: [String: String], file: SecretsFile?, searched: [String]
    )
        -> Result<String?, AppError>
    {
        let variable = environment["TRACKER_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
        let wanted = flag ?? variable
        let how = flag != nil ? "--profile" : "TRACKER_PROFILE"
        guard let file else {
            guard let wanted else { return .success(nil) }
            return .failure(
                .configuration(
                    "\(how) names profile \"\(wanted)\", but there is no secrets file (looked for \(searched.joined(separator: " and ")))",
                    hint: "Run 'tracker init --profile \(wanted)' to create one."))
        }
        let names = file.profileNames
        if let wanted {
            if file.profiles[wanted] != nil { return .success(wanted) }
            if names.isEmpty {
                return .failure(
                    .configuration(
                        "\(how) names profile \"\(wanted)\", but \(file.path) has no profiles",
                        hint: "Add one with 'tracker init --profile \(wanted)'."))
            }
            return .failure(
                .configuration(
                    "no profile \"\(wanted)\" in \(file.path)\(SecretsFile.listing(names))."
                        + Suggestion.ending(for: wanted, in: names),
                    hint: "Pick one with --profile NAME or TRACKER_PROFILE."))
        }
        if names.isEmpty { return .success(nil) }
        if case .string(let name)? = file.values[.default] { return .success(name) }
        if names.count == 1 { return .success(names[0]) }
        return .failure(
            .configuration(
                "\(file.path) has several profiles and no \"default\"\(SecretsFile.listing(names))",
                hint: "Pick one with --profile NAME or TRACKER_PROFILE, or add \"default\": \"NAME\" to the file."))
    }

    /// The environment's value for `key` (AIRTABLE_TOKEN and the like), which overrides the file's unless empty.
    package static func environmentValue(of key: SecretsKey, in environment: [String: String]) -> String? {
        key.environmentVariable.flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Refuses the example file's placeholders and values that cannot be a token or a base id.
    package static func check(token: String, baseID: String, origin: String) throws {
        if hasPlaceholderRun(token) || token.hasSuffix(String(repeating: "0", count: 64)) {
            throw AppError.configuration(
                "the token in \(origin) is still the placeholder from Secrets.example.json",
                hint: "Create a personal access token at https://airtable.com/create/tokens and paste it in.")
        }
        // By scalar, not by Character: as strict (a line break is white space too) at a fraction of the cost.
        if token.unicodeScalars.contains(where: {
            $0.isASCII ? $0 == " " || (0x09...0x0D).contains($0.value) : $0.properties.isWhitespace
        }) {
            throw AppError.configuration("the token in \(origin) contains spaces or line breaks", hint: nil)
        }
        let isBaseID =
            baseID.count == 17 && baseID.hasPrefix("app")
            && baseID.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
            }
        guard isBaseID, !hasPlaceholderRun(baseID) else {
            // A value much longer than a base id may be a token pasted into the wrong key: it is not repeated.
            let looksLikeToken = baseID.hasPrefix("pat") || baseID.hasPrefix("key") || baseID.count > 24
            let shown = looksLikeToken ? "" : " \"\(baseID)\""
            throw AppError.configuration(
                "baseId\(shown) in \(origin) is not an Airtable base id (app followed by 14 letters and digits)"
                    + (looksLikeToken ? "; it looks like a token, which belongs in \"token\"" : ""),
                hint: "Copy it from the base's URL: https://airtable.com/appXXXXXXXXXXXXXX/…")
        }
    }

    /// Whether `value` holds Secrets.example.json's placeholder, 14 X's in a row (counted in bytes: a string search
    /// would bring in the string-processing library's generic machinery at every start).
    private static func hasPlaceholderRun(_ value: String) -> Bool {
        var run = 0
        for byte in value.utf8 {
            run = byte == UInt8(ascii: "X") ? run + 1 : 0
            if run == 14 { return true }
        }
        return false
    }

    /// The endpoint a setting names, nil when there is none; plain http only to this machine.
    package static func endpoint(_ text: String?) throws -> URL? {
        guard var text, !text.isEmpty else { return nil }
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            scheme == "https" || scheme == "http"
        else {
            throw AppError.configuration("endpoint \"\(text)\" is not an http(s) URL", hint: nil)
        }
        if scheme == "http" && !isLoopback(host) {
            throw AppError.configuration(
                "refusing plain http:// endpoint \(host): the token would travel unencrypted",
                hint: "Use https://, or http:// only with localhost or 127.0.0.1.")
        }
        return url
    }

    package static func isLoopback(_ host: String) -> Bool {
        var bare = Substring(host.lowercased())
        while bare.hasPrefix("[") { bare.removeFirst() }
        while bare.hasSuffix("]") { bare.removeLast() }
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The one-line warning for a secrets file others can read, shared with `doctor`.
    package static func readableWarning(_ path: String) -> String {
        "warning: \(path) is readable by other users; run: chmod 600 '\(path)'"
    }
}
