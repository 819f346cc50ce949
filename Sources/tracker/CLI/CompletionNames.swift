#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

/// `tracker __complete KIND [--secrets PATH] [--profile NAME]`: what the completion scripts offer at TAB, one a line,
/// read from the names file and the secrets file only. It runs no token command, sends no request and prints no
/// error: a TAB that finds nothing offers nothing.
enum CompletionNames {
    /// The kinds the scripts ask for.
    enum Kind: String, CaseIterable {
        case projects, categories, views, fields, columns, profiles, tasks, people, clients
    }

    /// The hidden command's name; it is in no help page.
    static let command = "__complete"

    static func lines(_ arguments: [String], context: Context) -> [String] {
        guard let kind = arguments.first.flatMap(Kind.init(rawValue:)) else { return [] }
        func flag(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        let located = try? SecretsFile.locate(
            flag: flag("--secrets"), environment: context.environment, currentDirectory: context.currentDirectory
        ).get()
        if kind == .profiles { return located?.profileNames ?? [] }
        guard
            let table = ConfigurationLoader.locateTable(
                file: located, profile: flag("--profile"), environment: context.environment),
            let cache = context.cacheDirectory,
            let names = cache.read(
                NamesFile.fileName(endpoint: table.endpoint, baseID: table.baseID, table: table.name)
            )
            .flatMap(NamesFile.init(data:))
        else {
            switch kind {
            case .columns: return ListColumn.standard.map(\.rawValue)
            case .categories: return CommandSpec.categoryChoices
            case .people: return ["me"]
            default: return []
            }
        }
        let found: [String]
        switch kind {
        case .projects: found = names.projects
        // Until tracker has read the schema, the template's categories.
        case .categories: found = names.categories.isEmpty ? CommandSpec.categoryChoices : names.categories
        case .views: found = names.views
        case .fields: found = names.fields
        case .columns: found = ListColumn.standard.map(\.rawValue) + names.fields
        case .profiles: found = []
        case .tasks: found = names.tasks
        case .people: found = ["me"] + names.people
        case .clients: found = names.clients
        }
        // A name a line: one holding a line break cannot be offered whole, and one holding any other control
        // character is not put on a command line at all.
        return found.filter { !$0.unicodeScalars.contains(where: ControlCharacters.isControl) }
    }
}

extension ConfigurationLoader {
    /// The endpoint, base and table a command would use, without the token (so no token command runs); nil when the
    /// files and environment do not say.
    static func locateTable(file: SecretsFile?, profile flag: String?, environment: [String: String]) -> (
        endpoint: URL, baseID: String, name: String
    )? {
        guard case .success(let profile) = choose(profile: flag, environment: environment, file: file, searched: [])
        else { return nil }
        let values = file?.settings(of: profile) ?? [:]
        func value(_ key: SecretsKey) -> String? {
            if let set = environmentValue(of: key, in: environment) { return set }
            if case .string(let text)? = values[key] { return text }
            return nil
        }
        guard let baseID = value(.baseId), let table = value(.table) else { return nil }
        let endpoint = (try? endpoint(value(.endpoint))) ?? nil
        return (endpoint ?? Configuration.defaultEndpoint, baseID, table)
    }
}
