import Foundation

/// The local day `offset` days from `now`, as `YYYY-MM-DD`: how the tests make dates that mean the same on any day
/// the suite runs (a fixed date passes one day, and a project "open" today is "overdue" after it).
func localDay(_ offset: Int, from now: Date = Date()) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .current
    let date = calendar.date(byAdding: .day, value: offset, to: now)!
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
}
