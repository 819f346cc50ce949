#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

extension Session {
    /// Keeps the names file for shell completion up to date with what this command read: `projects` first, and the
    /// schema's categories, views and fields when tracker has it. Failing to write it is not an error.
    package func rememberNames(
        _ projects: [String], ids: [(id: String, name: String)] = [], replacing: Bool
    ) {
        guard let cache = surroundings.cache else { return }
        let name = NamesFile.fileName(
            endpoint: configuration.endpoint, baseID: configuration.baseID, table: configuration.table)
        let stored = cache.read(name)
        var names = stored.flatMap(NamesFile.init(data:)) ?? NamesFile()
        names.remember(projects: projects, replacing: replacing)
        names.remember(projectIDs: ids, replacing: replacing)
        if let table = layout.table {
            names.remember(
                table: table, category: layout.fields[.category], trackerFields: Set(layout.fields.names))
        }
        // A listing of what is already known writes nothing: most runs of a cron line or a prompt change no name.
        let data = names.data
        if data != stored { cache.write(data, to: name) }
    }

    /// Keeps the clients' names for TAB after `--client`.
    package func rememberClientNames(_ clients: [String]) {
        guard let cache = surroundings.cache else { return }
        let name = NamesFile.fileName(
            endpoint: configuration.endpoint, baseID: configuration.baseID, table: configuration.table)
        var names = cache.read(name).flatMap(NamesFile.init(data:)) ?? NamesFile()
        let before = names
        names.remember(clients: clients)
        if names != before { cache.write(names.data, to: name) }
    }

    /// Adds the names of `tasks` and their assignees to the names file, for TAB after `task` verbs and `--assignee`.
    package func rememberTaskNames(_ tasks: [ProjectTask]) {
        guard let cache = surroundings.cache, !tasks.isEmpty else { return }
        let name = NamesFile.fileName(
            endpoint: configuration.endpoint, baseID: configuration.baseID, table: configuration.table)
        var names = cache.read(name).flatMap(NamesFile.init(data:)) ?? NamesFile()
        // The file keeps the first few thousand; a listing of 50,000 tasks need not offer the rest to it.
        let shown = tasks.prefix(NamesFile.projectLimit)
        let people = shown.compactMap { $0.assignee.map { $0.name ?? $0.email ?? "" } }
        let before = names
        names.remember(tasks: shown.compactMap(\.name), people: people)
        if names != before { cache.write(names.data, to: name) }
    }

    /// The name a listing or `show` last read for the project `id`, if any (it may have been renamed since: what is
    /// read by it is checked against the record).
    package func rememberedName(ofProject id: String) -> String? {
        guard let cache = surroundings.cache else { return nil }
        let file = NamesFile.fileName(
            endpoint: configuration.endpoint, baseID: configuration.baseID, table: configuration.table)
        return cache.read(file).flatMap(NamesFile.init(data:))?.projectNames[id]
    }
}
