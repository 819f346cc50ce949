#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// The one directory `tracker mcp`'s file tools read from and write into (`--root`, else where the server started).
///
/// A path an assistant gives is refused (64, nothing read, sent or written) when it resolves outside the root (`..`,
/// an absolute path elsewhere, a symbolic link out) or has a hidden part (`.env`, `.git/config`, `.ssh/…`), before or
/// after links are followed. A root of `/`, the home directory or a directory above it is no root: assistants' apps
/// often start servers there, and an assistant must never be able to upload `~/.ssh/id_ed25519`.
package struct FileRoot: Equatable, Sendable {
    /// The root, links resolved; nil when there is none to use.
    package var path: String?
    /// Why there is no root.
    package var refusal: String?

    /// The root for `directory` (the flag's, else the working directory), given the user's home.
    package static func choose(_ directory: String, home: String?) -> FileRoot {
        guard let resolved = realPath(directory) else {
            return FileRoot(path: nil, refusal: "the root \(directory) does not exist")
        }
        let homeResolved = home.flatMap(realPath)
        if resolved == "/" || homeResolved.map({ $0 == resolved || $0.hasPrefix(resolved + "/") }) == true {
            return FileRoot(
                path: nil,
                refusal:
                    "the file tools have no root: \(resolved) is / or your home directory (or above it); start the server with --root DIR, a directory of files to share"
            )
        }
        return FileRoot(path: resolved, refusal: nil)
    }

    /// The absolute path `given` names inside the root, checked for `use`; a usage error naming the argument otherwise.
    package func resolve(_ given: String, for use: MCPTool.PathUse, argument: String) throws(AppError) -> String {
        guard let root = path else { throw AppError.usage(refusal ?? "the file tools have no root", command: nil) }
        func refuse(_ why: String) -> AppError {
            .usage("\(argument) \"\(given)\" \(why); nothing was read, sent or written", command: nil)
        }
        guard !given.isEmpty, !given.contains("\0") else { throw refuse("is not a path") }
        let absolute = given.hasPrefix("/") ? given : root + "/" + given
        let parts = absolute.split(separator: "/").map(String.init)
        if parts.contains("..") { throw refuse("leaves the root \(root) (..)") }
        if parts.contains(where: { $0.hasPrefix(".") && $0 != "." }) { throw refuse("has a hidden part") }
        let lexical = "/" + parts.filter { $0 != "." }.joined(separator: "/")
        guard Self.isInside(lexical, root) else { throw refuse("is outside the root \(root)") }
        // Links followed: the file itself, or for a directory to write into its nearest existing ancestor.
        var existing = lexical
        var rest: [String] = []
        while realPathOrNil(existing) == nil, use == .writeDirectory, existing != root,
            let slash = existing.lastIndex(of: "/")
        {
            rest.insert(String(existing[existing.index(after: slash)...]), at: 0)
            existing = String(existing[..<slash])
        }
        guard let real = realPathOrNil(existing) else { throw refuse("does not exist") }
        guard Self.isInside(real, root) else { throw refuse("leads outside the root \(root) through a symbolic link") }
        let inside = real.dropFirst(root.count).split(separator: "/")
        if inside.contains(where: { $0.hasPrefix(".") }) {
            throw refuse("leads to a hidden file through a symbolic link")
        }
        return rest.isEmpty ? real : real + "/" + rest.joined(separator: "/")
    }

    private func realPathOrNil(_ path: String) -> String? { Self.realPath(path) }

    package static func isInside(_ path: String, _ root: String) -> Bool { path == root || path.hasPrefix(root + "/") }

    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
