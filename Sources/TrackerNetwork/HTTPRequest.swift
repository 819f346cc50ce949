#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One request as tracker sends it: method, address, headers and body.
///
/// tracker's own type rather than `URLRequest`, which on Linux lives in FoundationNetworking: linking that library
/// alone costs every start time and the binary tens of megabytes (the benchmark README), for a URLSession that Linux
/// never uses (libcurl sends).
public struct HTTPRequest: Equatable, Sendable {
    public var url: URL
    public var method: String
    /// Header values by name as set; `value(forHTTPHeaderField:)` looks them up in any case.
    public private(set) var headers: [String: String] = [:]
    public var body: Data?
    /// A request whose body may take longer to send than any one deadline (an upload of megabytes on a slow line):
    /// it fails when the transfer stalls for the timeout, not when the timeout has passed.
    public var isLongTransfer = false
    /// Hears the body bytes sent so far while the request goes out (an upload's progress line); not part of what the
    /// request is.
    public var sendProgress: SendProgress?

    @_spi(Sending) public init(url: URL, method: String = "GET", body: Data? = nil) {
        self.url = url
        self.method = method
        self.body = body
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.url == rhs.url && lhs.method == rhs.method && lhs.headers == rhs.headers && lhs.body == rhs.body
            && lhs.isLongTransfer == rhs.isLongTransfer
    }

    /// A header's value, whatever the case of its name.
    public func value(forHTTPHeaderField name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    /// Sets (or with nil removes) a header, replacing one of the same name in another case.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        for key in headers.keys where key.lowercased() == name.lowercased() { headers[key] = nil }
        if let value { headers[name] = value }
    }
}

/// Where an upload's progress goes: bytes sent so far.
public final class SendProgress: Sendable {
    let report: @Sendable (Int64) -> Void

    public init(_ report: @escaping @Sendable (Int64) -> Void) { self.report = report }
}
