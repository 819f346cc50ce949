import Foundation

/// One finished child process: wall seconds, CPU seconds (user + system) and peak resident set in MiB.
struct Sample {
    var wall: Double
    var cpu: Double
    var peakMiB: Double
    var status: Int32
}

/// Runs a program through `measure-child`, which forks it from a tiny process so its peak RSS is its own.
enum Measure {
    nonisolated(unsafe) static var helper = ""

    static func run(_ path: String, _ arguments: [String], environment: [String: String], stdout: String = "/dev/null")
        -> Sample
    {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("measure-\(UUID().uuidString)").path
        defer { unlink(report) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, report, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([helper, stdout, path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        guard posix_spawn(&pid, helper, &actions, nil, argv, envp) == 0 else {
            return Sample(wall: 0, cpu: 0, peakMiB: 0, status: -1)
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let fields = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(separator: " ").map {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        guard fields.count == 4 else { return Sample(wall: 0, cpu: 0, peakMiB: 0, status: -1) }
        return Sample(wall: fields[1], cpu: fields[2], peakMiB: fields[3] / 1024, status: Int32(fields[0]))
    }
}

/// Median and spread of a set of runs.
struct Summary {
    var samples: [Sample]

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var wall: Double { median(samples.map(\.wall)) }
    var cpu: Double { median(samples.map(\.cpu)) }
    var peak: Double { median(samples.map(\.peakMiB)) }
    var wallRange: (Double, Double) { (samples.map(\.wall).min() ?? 0, samples.map(\.wall).max() ?? 0) }
    var failures: Int { samples.filter { $0.status != 0 }.count }
}

/// Formats seconds for people: ms below a second.
func seconds(_ value: Double) -> String {
    value < 1 ? String(format: "%.1f ms", value * 1000) : String(format: "%.2f s", value)
}
