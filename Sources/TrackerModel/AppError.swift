/// What the service said about a failed request: its error type and message, either of which may be absent.
public struct ServiceError: Equatable, Sendable {
    public var type: String?
    public var message: String?

    public init(type: String?, message: String?) {
        self.type = type
        self.message = message
    }

    /// Airtable's type when the workspace's monthly API calls are used up (sent as a 429; waiting does not help).
    public static let billingLimitType = "PUBLIC_API_BILLING_LIMIT_EXCEEDED"
}

/// Every way a tracker command can fail; the text and the exit code of each are derived here and nowhere else.
public enum AppError: Error, Equatable, Sendable {
    /// The command line is wrong; `command` names the help page to point at.
    case usage(String, command: String?)
    /// The secrets file or environment is missing, unreadable or malformed.
    case configuration(String, hint: String?)
    /// The table has no field by the name tracker uses for `word`.
    case missingField(word: String, field: String, table: String)
    /// What was asked needs the base's schema, and the token lacks `schema.bases:read`.
    case schemaUnreadable(String)
    /// Airtable answered with an HTTP error status after any retries.
    case http(status: Int, ServiceError)
    /// Airtable refused the table's routes with 403: a wrong table name looks exactly like missing access.
    /// `setting` says where the table's name comes from (the projects', or the Tasks table's `"tasks"`).
    case tableAccessDenied(
        table: String, baseID: String, ServiceError,
        setting: String = "\"table\" in the secrets file, or AIRTABLE_TABLE")
    /// A 403 on a route that needs a scope the token may lack (the comments'), naming it.
    case scopeMissing(scope: String, doing: String)
    /// Nothing matched what the user asked for.
    case notFound(String, hint: String?)
    /// More than one project has the name the user gave.
    case ambiguous(name: String, candidates: [String])
    /// No project has the name the user gave, and several hold every word of it (a partial name).
    case ambiguousWords(words: String, candidates: [String])
    /// Still rate limited when the retry budget ran out.
    case rateLimited(waitedSeconds: Int)
    /// Someone asked every request to wait longer than the retry budget (a schedule in the team's Redis, a
    /// `Retry-After`): tracker does not take such a wait on anyone's word.
    case waitRefused(who: String, seconds: Int, budget: Int)
    /// Requests kept timing out until the retry budget ran out.
    case timedOut(seconds: Int)
    /// The network failed (refused, reset, DNS) and retries did not help.
    case network(String)
    /// A library tracker needs is not installed (libcurl); the text says how to install it.
    case missingSupport(String)
    /// The journal could not keep the write's entry (its Redis refused or is away, its file could not be written):
    /// the write is not sent, since a write that cannot be undone is not what the person set up.
    case journalUnavailable(String)
    /// A server face could not listen where it was asked to (the port taken, the address not this machine's).
    case cannotListen(address: String, reason: String)
    /// The TLS connection failed, mostly a certificate this machine does not trust; retrying cannot help.
    case tls(host: String, reason: String)
    /// Airtable answered 2xx with a body that is not what the API promises.
    case badResponse(String)
    /// A write's answer was lost (reset, timeout, 5xx), so it may or may not have been applied.
    case requestOutcomeUnknown(String)
    /// A create's answer was lost and the project did not appear while tracker looked for it.
    case createOutcomeUnknown(name: String, waitedSeconds: Int, noun: String = "project")
    /// A comment's answer was lost and the comment did not appear while tracker looked for it.
    case commentOutcomeUnknown(waitedSeconds: Int)
    /// An upload whose answer was lost, and whose attachment did not appear while tracker looked.
    case uploadOutcomeUnknown(filename: String, waitedSeconds: Int)
    /// Another tracker process held a lock for longer than the retry budget.
    case lockTimeout(what: String, waitedSeconds: Int)
    /// The team's Redis refused tracker (a wrong password or user, a database it lacks).
    case redisRefused(redis: String, reason: String)
    /// The team's Redis could not be used (refused, timed out, an untrusted certificate): `doctor`'s finding.
    case redisUnreachable(redis: String, reason: String)
    /// The team's Redis answered but refused a write (full under `noeviction`, a read-only replica): `doctor`'s finding.
    case redisRefusesWrites(redis: String, reason: String)
    /// A write that needs the team's lock could not take or keep it because the Redis could not be used.
    case teamLockUnavailable(redis: String, reason: String, doing: String)
    /// The team's lock was no longer this process's when the write was about to go (its lease ran out, Redis restarted).
    case teamLockLost(doing: String)
    /// Rows of an import are invalid, so nothing was written; `lines` says what is wrong with each.
    case invalidRows(count: Int, lines: [String])
    /// Writing an import failed or was interrupted part way; running it again finishes it.
    indirect case partialImport(AppError, written: Int, total: Int)
    /// Some files of an `attach` were uploaded before one failed.
    indirect case partialUpload(AppError, done: Int, total: Int)
    /// The user answered no to a question, or left an editor without saving.
    case declined(String)
    /// `tracker edit`: fields changed both in Airtable and in the form, each as `"Due" is … in Airtable, … here`.
    case editConflict([String])
    /// `tracker undo` left fields alone that were changed since the entry set them (each as a phrase): the rest was
    /// undone.
    case undoIncomplete(entry: String, left: [String])
    /// A write an approval policy holds: planned, not sent; the face answers with the approval it waits for.
    case writePlanned
    /// An approval's records changed since it was planned (each as a phrase): nothing was written, and the approval
    /// now shows the records as they are, to be approved again.
    case approvalConflict(id: String, changes: [String])
    /// Files a download kept because a different file of that name was there (their paths).
    case filesKept([String])
    /// `tracker edit` did not apply what was typed, for `cause`; the text is kept in the file at `path`.
    indirect case editKept(AppError, path: String)
    /// A local file could not be read.
    case file(String)
    /// Standard output could not be written (other than a closed pipe).
    case output(String)
    /// The user pressed Ctrl-C.
    case interrupted
    /// A program tracker ran for the user (the demo's shell or command) ended with `status`, having said why itself.
    case exited(ExitCode)
}

extension AppError {
    /// The exit status docs/contract.md assigns to this failure.
    public var exitCode: ExitCode {
        switch self {
        case .usage, .ambiguous, .ambiguousWords: .usage
        case .configuration, .missingField, .redisRefused: .configuration
        case .http(let status, let body): Self.exitCode(status: status, type: body.type)
        case .tableAccessDenied, .schemaUnreadable, .scopeMissing: .permissionDenied
        case .notFound: .notFound
        case .rateLimited, .waitRefused, .timedOut, .requestOutcomeUnknown, .createOutcomeUnknown,
            .commentOutcomeUnknown,
            .uploadOutcomeUnknown,
            .lockTimeout, .teamLockUnavailable, .teamLockLost, .journalUnavailable, .undoIncomplete,
            .approvalConflict:
            .temporaryFailure
        case .network, .tls, .badResponse, .missingSupport, .redisUnreachable, .redisRefusesWrites, .cannotListen:
            .unavailable
        case .file: .notFound
        case .output, .declined, .writePlanned: .failure
        case .interrupted: .interrupted
        case .exited(let status): status
        case .invalidRows: .dataRejected
        case .partialImport(let cause, _, _), .editKept(let cause, _), .partialUpload(let cause, _, _): cause.exitCode
        case .editConflict, .filesKept: .failure
        }
    }

    private static func exitCode(status: Int, type: String?) -> ExitCode {
        switch status {
        case 401, 403: .permissionDenied
        case 404 where type == "TABLE_NOT_FOUND": .configuration
        case 404: .notFound
        case 422: .dataRejected
        case 429 where type == ServiceError.billingLimitType: .unavailable
        case 429: .temporaryFailure
        case 500...599: .unavailable
        default: .failure
        }
    }

    /// What a Redis refused, in words: the password (WRONGPASS, NOAUTH), the user's permissions (NOPERM), or else
    /// tracker, with Redis's own words beside.
    static func refusal(_ reason: String) -> String {
        let code = reason.prefix(while: { $0 != " " })
        switch code {
        case "WRONGPASS", "NOAUTH": return "refused the password (\(reason))"
        case "NOPERM": return "refused the user's permissions (\(reason))"
        default: return "refused tracker: \(reason)"
        }
    }

    /// The first stderr line, without the `tracker: ` prefix.
    public var message: String {
        switch self {
        case .usage(let text, _): text
        case .configuration(let text, _): text
        case .missingField(let word, let field, let table):
            "the table \"\(table)\" has no field \"\(field)\" (tracker's \"\(word)\")"
        case .http(let status, let body): Self.describe(status: status, body: body)
        case .tableAccessDenied(let table, let baseID, let body, _):
            "Airtable denied access to table \"\(table)\" of base \(baseID) (\(Self.detail(403, body)))"
        case .schemaUnreadable(let text): text
        case .scopeMissing(let scope, let doing):
            "Airtable denied \(doing) (403): the token needs the \(scope) scope"
        case .notFound(let text, _): text
        case .ambiguousWords(let words, let candidates):
            "no project is named \"\(words)\", and \(candidates.count) hold every word of it: \(candidates.joined(separator: ", "))"
        case .ambiguous(let name, let candidates):
            "\(candidates.count) projects are named \"\(name)\": \(candidates.joined(separator: ", "))"
        case .rateLimited(let waited):
            "Airtable is still rate limiting after \(waited)s of retries (429 RATE_LIMIT_REACHED)"
        case .waitRefused(let who, let seconds, let budget):
            "\(who) asks every request to wait \(seconds)s, longer than the retry budget (\(budget)s); not waiting"
        case .timedOut(let seconds):
            "Airtable did not answer within \(seconds)s, even after retrying"
        case .network(let text): text
        case .tls(let host, let reason): "cannot make a secure connection to \(host): \(reason)"
        case .missingSupport(let text): text
        case .cannotListen(let address, let reason): "cannot listen on \(address) (\(reason))"
        case .journalUnavailable(let why): "the journal could not keep this write, so nothing was written: \(why)"
        case .badResponse(let text): "unexpected answer from Airtable: \(text)"
        case .requestOutcomeUnknown(let cause): "\(cause); the request may or may not have been applied"
        case .createOutcomeUnknown(let name, let waited, let noun):
            "the answer to creating \"\(name)\" was lost, and the \(noun) did not appear in \(waited)s of looking; Airtable may still create it"
        case .commentOutcomeUnknown(let waited):
            "the answer to adding the comment was lost, and it did not appear in \(waited)s of looking; Airtable may still add it"
        case .uploadOutcomeUnknown(let filename, let waited):
            "the answer to uploading \"\(filename)\" was lost, and the file did not appear in \(waited)s of looking; Airtable may still add it"
        case .lockTimeout(let what, let waited):
            "another tracker process has been \(what) for \(waited)s; gave up waiting for it"
        case .redisRefused(let redis, let reason): "the Redis at \(redis) \(Self.refusal(reason))"
        case .redisRefusesWrites(let redis, let reason):
            "the Redis at \(redis) answers but refuses writes (\(reason)); pacing falls back to each machine alone, --if-absent is refused and the team's copy is not refreshed"
        case .redisUnreachable(let redis, let reason):
            "the Redis at \(redis) cannot be used (\(reason)); pacing falls back to this machine and --if-absent is refused"
        case .teamLockUnavailable(let redis, let reason, let doing):
            "cannot take the team's lock for \(doing): the Redis at \(redis) cannot be used (\(reason)); nothing was written"
        case .teamLockLost(let doing):
            "the team's lock for \(doing) was lost before the write went out (its lease ran out, or Redis restarted); nothing was written"
        case .declined(let text): text
        case .invalidRows(let count, _):
            "\(count) row\(count == 1 ? " is" : "s are") invalid, so nothing was written"
        case .partialImport(.interrupted, let written, let total):
            "interrupted after \(written) of \(total) rows were written"
        case .partialImport(let cause, let written, let total):
            "\(cause.message) (\(written) of \(total) rows were written)"
        case .filesKept(let paths):
            "\(paths.count == 1 ? "a different file" : "different files") of that name \(paths.count == 1 ? "is" : "are") already there, so \(paths.count == 1 ? "it was" : "they were") kept: "
                + paths.joined(separator: ", ")
        case .partialUpload(let cause, let done, let total):
            "\(cause.message) (\(done) of \(total) files were attached; their ids were printed)"
        case .editConflict(let fields):
            "the project changed in Airtable while you edited it, so nothing was written: "
                + fields.joined(separator: "; ")
        case .undoIncomplete(let entry, let left):
            "\(entry) was undone but for \(left.count) change\(left.count == 1 ? "" : "s") made since, left alone: "
                + left.joined(separator: "; ")
        case .writePlanned: "the write waits for a person's approval; nothing was written"
        case .approvalConflict(let id, let changes):
            "\(id) was not made: \(changes.count) field\(changes.count == 1 ? "" : "s") changed since it was planned: "
                + changes.joined(separator: "; ")
        case .editKept(let cause, _): cause.message
        case .file(let text): text
        case .output(let text): "cannot write output: \(text)"
        case .interrupted: "interrupted"
        case .exited: ""
        }
    }

    /// The optional second stderr line: what to do next.
    public var hint: String? {
        switch self {
        case .usage(_, let command): "Run 'tracker help\(command.map { " \($0)" } ?? "")' for usage."
        case .configuration(_, let hint): hint
        case .missingField(let word, _, _):
            "If the field was renamed, map it in the secrets file: \"fields\": {\"\(word)\": \"<its name>\"}; if the base has none, \"\(word)\": null. 'tracker doctor' lists the table's fields."
        case .schemaUnreadable:
            "Give the token the schema.bases:read scope at https://airtable.com/create/tokens (tracker only reads the schema)."
        case .http(let status, let body): Self.hint(status: status, type: body.type)
        case .tableAccessDenied(let table, _, _, let setting):
            "Check that the table is named \"\(table)\" exactly (\(setting)), and that the token has the data.records:read and data.records:write scopes and access to this base."
        case .scopeMissing(let scope, _):
            "Add \(scope) to the token at https://airtable.com/create/tokens; everything else works without it."
        case .notFound(_, let hint): hint
        case .ambiguous: "Pass one of the ids instead."
        case .ambiguousWords: "Pass one of the ids, or more of the name."
        case .rateLimited: "Another client may be using this base heavily; try again in a minute."
        case .waitRefused:
            "Try again later; if it persists, a schedule may be stuck: check the clock of the team's Redis, or raise retryBudgetSeconds."
        case .timedOut: "Check your connection, or raise --timeout / timeoutSeconds."
        case .network: "Check your connection and the endpoint; try again later."
        case .cannotListen: "Another program may hold the port: choose another with --listen ADDR:PORT."
        case .journalUnavailable:
            "Try again once the journal's Redis or state directory takes writes, or set \"journal\": \"best-effort\" to write without it."
        case .tls:
            "tracker trusts the system's CA certificates. Behind a TLS-inspecting proxy, install its CA: copy it to /usr/local/share/ca-certificates/ and run 'sudo update-ca-certificates'."
        case .badResponse: "Airtable may be having problems; try again later."
        case .createOutcomeUnknown(_, _, let noun):
            "To finish safely, run the same command again with --if-absent: it creates the \(noun) only if it is still missing."
        case .requestOutcomeUnknown: "Check with 'tracker list' before trying again."
        case .commentOutcomeUnknown:
            "Check the project's comments ('tracker comments ID|NAME') before commenting again."
        case .uploadOutcomeUnknown:
            "Check the files ('tracker files PROJECT') before attaching it again: attaching twice adds two copies."
        case .lockTimeout: "Try again when it has finished."
        case .redisRefused:
            "Check the password in \"redis\" in the secrets file or TRACKER_REDIS_URL (redis://:password@host:port; user:password@ for an ACL user), or what \"redisPasswordCommand\" prints."
        case .redisRefusesWrites:
            "Raise its maxmemory or free memory (tracker's keys expire on their own); a read-only replica: name its primary."
        case .redisUnreachable:
            "Check that the Redis is running and that this machine reaches it (\"redis\" in the secrets file, or TRACKER_REDIS_URL; \"redisCA\" for a CA of your own)."
        case .teamLockUnavailable:
            "To finish safely, run the same command again when the Redis is back: the lock keeps it exactly once. On this machine alone, without the team's Redis: TRACKER_REDIS_URL= tracker …"
        case .teamLockLost: "To finish safely, run the same command again: the lock keeps it exactly once."
        case .approvalConflict(let id, _):
            "Nothing was written over a change you did not see: look again ('tracker approve \(id)' shows the records as they are now) and approve once more."
        case .undoIncomplete:
            "An undo never writes over a change it did not make: change those fields by hand if they should go back."
        case .invalidRows(_, let lines):
            lines.prefix(20).joined(separator: "\n") + (lines.count > 20 ? "\n… and \(lines.count - 20) more" : "")
        case .partialImport:
            "Run the same command again to finish: rows already in are matched by their key, never added twice."
        case .partialUpload(let cause, _, _): cause.hint
        case .filesKept: "Pass --force to replace them, or download into another directory."

        case .editKept(.editConflict, let path):
            "What you typed is kept in \(path); 'tracker edit' again shows the project as it is now."
        case .editKept(let cause, let path):
            "What you typed is kept in \(path)." + (cause.hint.map { " " + $0 } ?? "")
        case .declined, .file, .output, .interrupted, .editConflict, .exited, .missingSupport, .writePlanned: nil
        }
    }

    private static func describe(status: Int, body: ServiceError) -> String {
        if status == 429, body.type == ServiceError.billingLimitType {
            return "the workspace has used up its monthly Airtable API calls (\(detail(status, body)))"
        }
        let what =
            switch status {
            case 400: "Airtable could not read the request"
            case 401: "Airtable did not accept the token"
            case 403: "Airtable denied access"
            case 404: "Airtable could not find it"
            case 413: "Airtable refused the request as too large"
            case 414: "Airtable refused the request because its URL is too long"
            case 422: "Airtable rejected the request"
            case 429: "Airtable refused the request"
            case 500...599: "Airtable is failing"
            default: "Airtable answered with an error"
            }
        return "\(what) (\(detail(status, body)))"
    }

    /// Airtable's own type and message when it sent them, else the status in words: never a bare number.
    private static func detail(_ status: Int, _ body: ServiceError) -> String {
        let said = [body.type, body.message].compactMap { $0 }.joined(separator: ": ")
        return said.isEmpty ? "\(status) \(HTTPStatus.reason(status))" : "HTTP \(status) \(said)"
    }

    private static func hint(status: Int, type: String?) -> String? {
        switch (status, type) {
        case (401, _):
            "Check the token in your secrets file or AIRTABLE_TOKEN; create one at https://airtable.com/create/tokens."
        case (403, _):
            "The token needs the data.records:read and data.records:write scopes and access to this base; or baseId/table is wrong."
        case (404, "TABLE_NOT_FOUND"): "Check \"table\" in your secrets file or AIRTABLE_TABLE."
        case (429, ServiceError.billingLimitType):
            "Waiting will not help: the limit resets with the workspace's billing period, or a workspace owner can change the plan."
        case (500...599, _): "Try again later; https://status.airtable.com shows outages."
        default: nil
        }
    }
}

/// HTTP's reason phrases, for statuses that arrive without an Airtable body.
enum HTTPStatus {
    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 413: "Payload Too Large"
        case 414: "URI Too Long"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "error"
        }
    }
}
