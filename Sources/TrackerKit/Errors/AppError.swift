/// What Airtable said about a failed request: its `error.type` and `error.message`, either of which may be absent.
public struct AirtableErrorBody: Equatable, Sendable {
    public var type: String?
    public var message: String?

    public init(type: String?, message: String?) {
        self.type = type
        self.message = message
    }
}

/// Every way a tracker command can fail; the text and the exit code of each are derived here and nowhere else.
public enum AppError: Error, Equatable, Sendable {
    /// The command line is wrong; `command` names the help page to point at.
    case usage(String, command: String?)
    /// The secrets file or environment is missing, unreadable or malformed.
    case configuration(String, hint: String?)
    /// Airtable answered with an HTTP error status after any retries.
    case http(status: Int, AirtableErrorBody)
    /// Nothing matched what the user asked for.
    case notFound(String, hint: String?)
    /// More than one project has the name the user gave.
    case ambiguous(name: String, candidates: [String])
    /// Still rate limited when the retry budget ran out.
    case rateLimited(waitedSeconds: Int)
    /// Requests kept timing out until the retry budget ran out.
    case timedOut(seconds: Int)
    /// The network failed (refused, reset, DNS) and retries did not help.
    case network(String)
    /// Airtable answered 2xx with a body that is not what the API promises.
    case badResponse(String)
    /// A write's answer was lost (reset, timeout, 5xx), so it may or may not have been applied.
    case requestOutcomeUnknown(String)
    /// A create request's answer was lost and tracker could not find out whether it was applied.
    case outcomeUnknown(name: String)
    /// A local file could not be read.
    case file(String)
    /// Standard output could not be written (other than a closed pipe).
    case output(String)
    /// The user pressed Ctrl-C.
    case interrupted
}

extension AppError {
    /// The exit status cli-spec.md assigns to this failure.
    public var exitCode: ExitCode {
        switch self {
        case .usage, .ambiguous: .usage
        case .configuration: .configuration
        case .http(let status, let body): Self.exitCode(status: status, type: body.type)
        case .notFound: .notFound
        case .rateLimited, .timedOut, .outcomeUnknown, .requestOutcomeUnknown: .temporaryFailure
        case .network, .badResponse: .unavailable
        case .file: .notFound
        case .output: .failure
        case .interrupted: .interrupted
        }
    }

    private static func exitCode(status: Int, type: String?) -> ExitCode {
        switch status {
        case 401, 403: .permissionDenied
        case 404 where type == "TABLE_NOT_FOUND": .configuration
        case 404: .notFound
        case 422: .dataRejected
        case 429: .temporaryFailure
        case 500...599: .unavailable
        default: .failure
        }
    }

    /// The first stderr line, without the `tracker: ` prefix.
    public var message: String {
        switch self {
        case .usage(let text, _): text
        case .configuration(let text, _): text
        case .http(let status, let body): Self.describe(status: status, body: body)
        case .notFound(let text, _): text
        case .ambiguous(let name, let candidates):
            "\(candidates.count) projects are named \"\(name)\": \(candidates.joined(separator: ", "))"
        case .rateLimited(let waited):
            "Airtable is still rate limiting after \(waited)s of retries (HTTP 429)"
        case .timedOut(let seconds):
            "Airtable did not answer within \(seconds)s, even after retrying"
        case .network(let text): text
        case .badResponse(let text): "unexpected answer from Airtable: \(text)"
        case .requestOutcomeUnknown(let cause): "\(cause); the request may or may not have been applied"
        case .outcomeUnknown(let name):
            "the answer to creating \"\(name)\" was lost and Airtable could not be asked whether it was created"
        case .file(let text): text
        case .output(let text): "cannot write output: \(text)"
        case .interrupted: "interrupted"
        }
    }

    /// The optional second stderr line: what to do next.
    public var hint: String? {
        switch self {
        case .usage(_, let command): "Run 'tracker help\(command.map { " \($0)" } ?? "")' for usage."
        case .configuration(_, let hint): hint
        case .http(let status, let body): Self.hint(status: status, type: body.type)
        case .notFound(_, let hint): hint
        case .ambiguous: "Pass one of the ids instead."
        case .rateLimited: "Another client may be using this base heavily; try again in a minute."
        case .timedOut: "Check your connection, or raise --timeout / timeoutSeconds."
        case .network: "Check your connection and the endpoint; try again later."
        case .badResponse: "Airtable may be having problems; try again later."
        case .outcomeUnknown(let name):
            "Check before retrying: tracker show \"\(name.replacingOccurrences(of: "\"", with: "\\\""))\""
        case .requestOutcomeUnknown: "Check with 'tracker list' before trying again."
        case .file, .output, .interrupted: nil
        }
    }

    private static func describe(status: Int, body: AirtableErrorBody) -> String {
        let what =
            switch status {
            case 401: "Airtable did not accept the token"
            case 403: "Airtable denied access"
            case 404: "Airtable could not find it"
            case 422: "Airtable rejected the request"
            case 429: "Airtable refused the request"
            case 500...599: "Airtable is failing"
            default: "Airtable answered with an error"
            }
        let detail = [body.type, body.message].compactMap { $0 }.joined(separator: ": ")
        return detail.isEmpty ? "\(what) (HTTP \(status))" : "\(what) (HTTP \(status) \(detail))"
    }

    private static func hint(status: Int, type: String?) -> String? {
        switch (status, type) {
        case (401, _):
            "Check the token in your secrets file or AIRTABLE_TOKEN; create one at https://airtable.com/create/tokens."
        case (403, _):
            "The token needs the data.records:read and data.records:write scopes and access to this base; or baseId/table is wrong."
        case (404, "TABLE_NOT_FOUND"): "Check \"table\" in your secrets file or AIRTABLE_TABLE."
        case (429, "PUBLIC_API_BILLING_LIMIT_EXCEEDED"): "The workspace has used up its monthly API calls."
        case (500...599, _): "Try again later; https://status.airtable.com shows outages."
        default: nil
        }
    }
}
