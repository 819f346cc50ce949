import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// How commands find the project a user named (docs/contract.md "Naming a project"): a record id of this table, else
/// the
/// exact name, else the one name that matches ignoring case. Every project it returns was read whole (no `fields[]`),
/// so a cell it lacks is empty: `attach` and `files` take a project's attachments from it.
package struct ProjectNaming {
    package var client: ProjectAPIClient
    /// For commands that only read (`show`, `open`, `comments`, `tasks PROJECT`): with no name matching, the one
    /// project whose name holds every word typed, in any case (`show coffee`). A write never acts on such a guess.
    package var forgivesWords = false
    /// For commands that write, on a terminal: asked `Did you mean "Coffee packaging"?` about the one project holding
    /// every word typed; the write goes ahead on that project only when it answers yes. Nil off a terminal (66).
    package var confirmsGuess: (@Sendable (Project) -> Bool)? = nil

    /// The one project `target` names; ambiguous is a usage error listing ids, none is not-found with close names.
    package func resolve(_ target: String) async throws -> Project {
        try await resolve(all: [target])[0]
    }

    /// The projects `targets` name, found in one request before anything is written; each project once.
    package func resolve(all targets: [String]) async throws -> [Project] {
        let candidates = try await client.candidates(for: targets).get()
        var projects: [Project] = []
        for target in targets {
            let project = try await pick(target, from: candidates)
            if !projects.contains(where: { $0.id == project.id }) { projects.append(project) }
        }
        return projects
    }

    /// `resembled`: the close names already read, when this is the second look.
    private func pick(_ target: String, from candidates: [Project], resembled: [String]? = nil) async throws
        -> Project
    {
        let matches = Self.matches(of: target, in: candidates, id: \.id, name: \.name)
        switch matches.count {
        case 1: return matches[0]
        case 0:
            if forgivesWords || confirmsGuess != nil, resembled == nil {
                let holding = try await holdingEveryWord(of: target)
                if holding.count > 1 {
                    // Several partial matches: each is named, never a guess among them nor "not found".
                    throw AppError.ambiguousWords(
                        words: target,
                        candidates: holding.sorted { ($0.name ?? "", $0.id) < ($1.name ?? "", $1.id) }.map {
                            "\($0.id) \"\($0.name ?? "")\" (due \($0.due?.description ?? "none"))"
                        })
                }
                if let guessed = holding.first {
                    if forgivesWords { return guessed }
                    if confirmsGuess?(guessed) == true { return guessed }
                    throw Self.notFound(target, resembling: [guessed.name ?? guessed.id])
                }
            }
            if let resembled { throw Self.notFound(target, resembling: resembled) }
            let resembling = try await client.names(resembling: target).get()
            // A project of that very name turned up between the two reads (a cron `add` racing this command):
            // read it again instead of suggesting what was typed.
            if resembling.contains(where: { $0.lowercased() == target.lowercased() }) {
                let again = try await client.candidates(for: [target]).get()
                return try await pick(target, from: again, resembled: resembling)
            }
            throw Self.notFound(target, resembling: resembling)
        default:
            throw AppError.ambiguous(
                name: target,
                candidates: matches.sorted { $0.createdTime < $1.createdTime }.map {
                    "\($0.id) (due \($0.due?.description ?? "none"))"
                })
        }
    }

    /// The projects whose names hold every word of `target` (any case), every one of them (a page at most: a
    /// hundred partial matches are too many to name, and tell the person to type more).
    private func holdingEveryWord(of target: String) async throws -> [Project] {
        let words = target.lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard !words.isEmpty else { return [] }
        let name = "LOWER(\(Formula.field(client.fields.name)))"
        let formula = Formula.all(words.map { "FIND(\(Formula.literal($0)), \(name))" })
        let found = try await client.projects(matching: formula, limit: 100).get()
        return found.filter { project in
            let lowered = (project.name ?? "").lowercased()
            return words.allSatisfy { lowered.contains($0) }
        }
    }

    private static func notFound(_ target: String, resembling: [String]) -> AppError {
        let what =
            ProjectAPIClient.looksLikeRecordID(target)
            ? "no project has id or name \"\(target)\"" : "no project is named \"\(target)\""
        // Suggesting exactly what was typed would say nothing.
        let close = closest(to: target, among: resembling.filter { $0 != target })
        return .notFound(what, hint: Suggestion.question(close) ?? "Run 'tracker list' to see names and ids.")
    }

    /// The records `target` names among `candidates`: the one with that id, else those named exactly so, else those
    /// named so ignoring case. One is a match; more are ambiguous.
    package static func matches<Record>(
        of target: String, in candidates: [Record], id: (Record) -> String, name: (Record) -> String?
    ) -> [Record] {
        if let byID = candidates.first(where: { id($0) == target }) { return [byID] }
        let exact = candidates.filter { name($0) == target }
        return exact.isEmpty ? candidates.filter { name($0)?.lowercased() == target.lowercased() } : exact
    }

    /// Up to three of `names` near `name`: the same words in another case, a containing name, or a small typo.
    package static func closest(to name: String, among names: [String]) -> [String] {
        let wanted = name.lowercased()
        var scored: [(String, Int)] = []
        for candidate in Set(names) {
            let lowered = candidate.lowercased()
            if lowered.contains(wanted) || wanted.contains(lowered) {
                scored.append((candidate, 0))
            } else {
                let distance = Suggestion.distance(wanted, lowered)
                if distance <= max(2, wanted.count / 4) { scored.append((candidate, distance)) }
            }
        }
        return scored.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3).map(\.0)
    }
    /// Each stored value given.
    package init(
        client: ProjectAPIClient, forgivesWords: Bool = false, confirmsGuess: (@Sendable (Project) -> Bool)? = nil
    ) {
        self.forgivesWords = forgivesWords
        self.client = client
        self.confirmsGuess = confirmsGuess
    }
}
