#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerNetwork
import TrackerModel

/// Airtable's error body in each shape recorded from the real service: `{"error": {"type", "message"}}`,
/// `{"error": "NOT_FOUND"}`, and the `{"errors": [{"error", "message"}]}` of 429s and the monthly quota.
enum ErrorEnvelope {
    /// The error in `data`, or nil when `data` is not an Airtable error body.
    public static func parse(_ data: Data) -> ServiceError? {
        guard let body = try? JSONParser.parse(data) else { return nil }
        let found: ServiceError
        if let type = body["error"]?.stringValue {
            found = ServiceError(type: type, message: nil)
        } else if let detail = body["error"], detail.objectMembers != nil {
            found = ServiceError(type: detail["type"]?.stringValue, message: detail["message"]?.stringValue)
        } else if let first = body["errors"]?.arrayValue?.first {
            found = ServiceError(
                type: first["error"]?.stringValue ?? first["type"]?.stringValue, message: first["message"]?.stringValue)
        } else {
            return nil
        }
        return found.type != nil || found.message != nil ? found : nil
    }
}

/// What Airtable's answers mean beyond HTTP.
enum AirtableErrors {
    /// The error type of a 429 for the workspace's monthly API calls (waiting does not help).
    public static let billingLimitType = ServiceError.billingLimitType

    /// Airtable's rules for `NetworkHelper`: its error bodies, the monthly quota that waiting cannot lift, and the
    /// header in which it sends a compressed answer's inflated length.
    public static let rules = ServiceRules(
        error: { status, body in
            .http(status: status, ErrorEnvelope.parse(body) ?? ServiceError(type: nil, message: nil))
        },
        isFinalLimit: { error in
            if case .http(429, let body) = error { return body.type == billingLimitType }
            return false
        },
        inflatedLengthHeader: "airtable-uncompressed-content-length", serviceName: "Airtable")
}
