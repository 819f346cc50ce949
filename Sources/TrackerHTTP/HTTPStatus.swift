#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// The words of HTTP: a status's reason phrase, a date as a header says it.
public enum HTTPStatus {
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 202: "Accepted"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "Request-URI Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    /// `Wed, 21 Oct 2015 07:28:00 GMT`.
    public static func date(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970)
        let days = seconds / 86400
        let day = CalendarDate(dayNumber: days)
        let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        let clock = seconds % 86400
        return "\(names[days % 7]), \(two(day.day)) \(months[day.month - 1]) \(day.year) "
            + "\(two(clock / 3600)):\(two(clock / 60 % 60)):\(two(clock % 60)) GMT"
    }
}
