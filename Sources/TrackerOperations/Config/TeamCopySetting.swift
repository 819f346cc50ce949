import TrackerModel

extension Resolver {
    /// `"teamCopy": true` (or `TRACKER_TEAM_COPY=1`, `0` off for one process), `"teamCopyEvery"` and `"maxAge"`, set
    /// on `configuration`. The team's copy puts records in the team's Redis, so it needs `"redis"` and is never on by
    /// default.
    package func teamCopy(into configuration: inout Configuration) throws {
        var on: Bool
        if let given = environment["TRACKER_TEAM_COPY"]?.trimmingWhitespace(), !given.isEmpty {
            switch given.lowercased() {
            case "1", "true", "yes", "on": on = true
            case "0", "false", "no", "off": on = false
            default:
                throw AppError.configuration(
                    "TRACKER_TEAM_COPY must be 1 or 0, not \"\(given.prefix(20))\"", hint: nil)
            }
            configuration.environmentKeys.append("TRACKER_TEAM_COPY")
        } else {
            switch values[.teamCopy] {
            case nil, .null?: on = false
            case .bool(let flag)?: on = flag
            default: throw AppError.configuration("\"teamCopy\" in \(origin) must be true or false", hint: nil)
            }
        }
        if on && configuration.redis == nil {
            throw AppError.configuration(
                "the team's copy is asked for (\"teamCopy\" or TRACKER_TEAM_COPY) but no team Redis is set",
                hint: "Set \"redis\" (or TRACKER_REDIS_URL), or run 'tracker init --redis URL --team-copy'.")
        }
        configuration.teamCopy = on
        configuration.teamCopyEvery = try seconds(.teamCopyEvery, range: 1...3600) ?? Configuration.defaultTeamCopyEvery
        configuration.maxAge = try seconds(.maxAge, range: 0...86400)
    }

    private func seconds(_ key: SecretsKey, range: ClosedRange<Double>) throws -> Double? {
        switch values[key] {
        case nil, .null?: return nil
        case .number(let number)? where range.contains(number): return number
        default:
            throw AppError.configuration(
                "\"\(key.rawValue)\" in \(origin) must be a number of seconds from \(Int(range.lowerBound)) to \(Int(range.upperBound))",
                hint: nil)
        }
    }
}
