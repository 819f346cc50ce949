import TrackerModel

/// Work every face calls the same way: typed options in, a typed outcome out, in a session; nothing printed. The
/// command line renders the outcome as text or JSON, `mcp` as structured content, the board on its screen.
package protocol Operation: Sendable {
    associatedtype Outcome: Sendable
    /// How its session is opened: beside the schema read when nothing is remembered, or the schema first.
    var opening: SessionOpening { get }
    /// Does the work in `session`, which holds the rules every write keeps.
    func run(in session: Session) async throws -> Outcome
    /// What the journal calls it: the command (`update`, `task add`).
    var journalName: String { get }
}

extension Operation {
    /// The type's name in words: `TaskAdd` is `task add`.
    package var journalName: String {
        var words = ""
        for character in String(describing: Self.self) {
            if character.isUppercase, !words.isEmpty { words.append(" ") }
            words.append(Character(character.lowercased()))
        }
        return words
    }
}

/// How a session is opened for an operation (`Session.open` says what each means).
package struct SessionOpening: Equatable, Sendable {
    /// Work that confirms the layout before anything is shown goes out beside the schema read, cold.
    package var readingBeside = false
    /// Beside it even where the face keeps a copy (the board's cold first screen).
    package var evenWithCopy = false

    /// The schema first, then the work.
    package static let schemaFirst = SessionOpening()
    /// The work beside the schema read, cold.
    package static let besideSchema = SessionOpening(readingBeside: true)

    /// Each value given.
    package init(readingBeside: Bool = false, evenWithCopy: Bool = false) {
        self.readingBeside = readingBeside
        self.evenWithCopy = evenWithCopy
    }
}

/// Opens sessions for a face that runs operations itself (the board, `mcp`): the configuration, the client and the
/// surroundings are the face's, made once by the executable that started it.
package struct SessionOpener: Sendable {
    private let open: @Sendable (SessionOpening, SchemaAttempt) async throws -> Session

    /// `open` makes a session as asked, for one run of an operation.
    package init(_ open: @escaping @Sendable (SessionOpening, SchemaAttempt) async throws -> Session) {
        self.open = open
    }

    /// A session for work the face does itself (the board's reads).
    package func session(_ opening: SessionOpening) async throws -> Session {
        try await open(opening, SchemaAttempt())
    }

    /// Runs `operation` in a session of its own. Nothing is handed back before the layout it assumed is confirmed;
    /// when the schema read beside it says the work went out with the wrong fields, and nothing was written that
    /// must not be sent twice, it runs once more with the schema first.
    /// `body` runs it when the face takes its outcome as it comes (a listing's pages).
    package func perform<O: Operation>(
        _ operation: O, _ body: ((Session) async throws -> O.Outcome)? = nil
    ) async throws -> O.Outcome {
        try await SchemaAttempt.retrying { attempt in
            try await Self.run(operation, in: try await open(operation.opening, attempt), body)
        }
    }

    /// The operation's outcome, once the layout it assumed is confirmed (after a write, once the schema read is in).
    /// `body` runs it in the face's own way (its outcome taken as it comes), else `run(in:)` does.
    package static func run<O: Operation>(
        _ operation: O, in session: Session, _ body: ((Session) async throws -> O.Outcome)? = nil
    ) async throws -> O.Outcome {
        let outcome: O.Outcome
        let session = session.doing(operation.journalName)
        if let body { outcome = try await body(session) } else { outcome = try await operation.run(in: session) }
        if session.attempt.hasWritten { await session.finish() } else { _ = try await session.confirmedLayout() }
        return outcome
    }
}
