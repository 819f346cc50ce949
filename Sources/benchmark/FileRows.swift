import FakeAirtable
import Foundation

/// Downloads of 100 files of 1 MB from the fake beside curl fetching the same addresses in one process, an upload of
/// 5 MB (peak RSS against a run that uploads nothing), and the round trips of `attach` and `files --download` against a
/// fake whose API and download host answer 300 ms late.
@MainActor func fileRows() throws {
    let coffee = "recPsjO1tkEyBCF7y"
    let (fake, environment) = try serve(FakeAirtable.recordedProjects)
    defer { fake.stop() }
    for index in 0..<100 {
        var bytes = Data(count: 1 << 20)
        bytes.withUnsafeMutableBytes { buffer in
            for offset in stride(from: 0, to: buffer.count, by: 8) {
                buffer[offset] = UInt8(truncatingIfNeeded: index &+ offset >> 12)
            }
        }
        fake.attach(
            bytes, filename: "file-\(index).bin", type: "application/octet-stream", toRecord: coffee,
            field: "Project images")
    }
    let runs = quick ? 1 : 5
    var trackerSamples: [Sample] = []
    var curlSamples: [Sample] = []
    for run in 0..<(runs + 1) {
        let into = scratch + "/download-\(UUID().uuidString)"
        let trackerSample = Measure.run(
            tracker, ["files", "Coffee packaging", "--download", into], environment: environment)
        // The same addresses, fresh, fetched by one curl process over one connection.
        let listing = scratch + "/listing-\(UUID().uuidString)"
        _ = Measure.run(tracker, ["files", "Coffee packaging"], environment: environment, stdout: listing)
        let urls = ((try? String(contentsOfFile: listing, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            $0.split(separator: "\t", omittingEmptySubsequences: false).last.map(String.init)
        }
        let curlInto = scratch + "/curl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: curlInto, withIntermediateDirectories: true)
        let arguments = ["-s", "-f"] + urls.enumerated().flatMap { ["-o", curlInto + "/\($0.offset)", $0.element] }
        let curlSample = Measure.run("/usr/bin/curl", arguments, environment: ["PATH": "/usr/bin:/bin"])
        if run > 0 {  // the first of each is a warm-up
            trackerSamples.append(trackerSample)
            curlSamples.append(curlSample)
        }
        try? FileManager.default.removeItem(atPath: into)
        try? FileManager.default.removeItem(atPath: curlInto)
        unlink(listing)
    }
    let (ours, theirs) = (Summary(samples: trackerSamples), Summary(samples: curlSamples))
    record("files --download, 100 files of 1 MB", ours)
    record("curl, the same 100 addresses in one process", theirs)
    digestRatios.append(
        String(
            format:
                "files --download / curl for 100 × 1 MB: wall %.2f× (goal ≤ 1.2×); tracker's peak RSS %.1f MiB (goal ≤ 40)",
            ours.wall / theirs.wall, ours.peak))

    let big = scratch + "/upload-5MB.bin"
    _ = FileManager.default.createFile(
        atPath: big, contents: Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) }))
    let upload = Summary(
        samples: (0..<runs).map { _ in
            Measure.run(tracker, ["attach", "Coffee packaging", big], environment: environment)
        })
    let nothing = Summary(
        samples: (0..<runs).map { _ in
            Measure.run(tracker, ["attach", "Coffee packaging", big, "--dry-run"], environment: environment)
        })
    record("attach, one file of 5 MB", upload)
    record("attach --dry-run, the same file (nothing sent)", nothing)
    digestRatios.append(
        String(
            format:
                "attach 5 MB: peak RSS %.1f MiB, %.1f MiB above a run that sends nothing: %.2f× the file (goal ≤ 3×)",
            upload.peak, upload.peak - nothing.peak, (upload.peak - nothing.peak) / 5))

    let late = 0.3
    var options = FakeAirtable.Options()
    options.latency = late
    // No recorded images: the project downloaded holds exactly the ten files attached here.
    let bare = FakeAirtable.recordedProjects.map { record -> [String: Any] in
        var record = record
        var fields = record["fields"] as? [String: Any] ?? [:]
        fields["Project images"] = nil
        record["fields"] = fields
        return record
    }
    let slow = FakeAirtable(options: options, records: bare)
    try slow.start()
    defer { slow.stop() }
    let lemon = "recZ2UzQoJcTTXjws"
    for index in 0..<10 {
        slow.attach(
            Data(count: 20_000 + index), filename: "mock-\(index).png", type: "image/png", toRecord: lemon,
            field: "Project images")
    }
    var slowEnv = environment
    let secrets = scratch + "/secrets-slow.json"
    try
        #"{"token": "\#(options.token)", "baseId": "\#(options.baseID)", "table": "\#(options.table)", "endpoint": "\#(slow.endpoint)"}"#
        .write(toFile: secrets, atomically: false, encoding: .utf8)
    chmod(secrets, 0o600)
    slowEnv["TRACKER_SECRETS"] = secrets
    let small = (0..<3).map { scratch + "/small-\($0).png" }
    for path in small { _ = FileManager.default.createFile(atPath: path, contents: Data(count: 30_000)) }
    _ = Measure.run(tracker, ["files", "Coffee packaging"], environment: slowEnv)  // remembers the schema
    func trips(_ name: String, _ arguments: [String]) {
        let before = (slow.log.count, slow.files.log.count)
        let sample = Measure.run(tracker, arguments, environment: slowEnv)
        print(
            String(
                format: "  %@ %10@  %.1f round trips, %d API requests, %d downloads%@",
                name.padding(toLength: 54, withPad: " ", startingAt: 0) as NSString, seconds(sample.wall) as NSString,
                sample.wall / late, slow.log.count - before.0, slow.files.log.count - before.1,
                sample.status == 0 ? "" : "  FAILED \(sample.status)"))
    }
    trips("attach, one file", ["attach", "Coffee packaging", small[0]])
    trips("attach, three files", ["attach", "Coffee packaging"] + small)
    let into = scratch + "/slow-download"
    trips("files --download, 10 files", ["files", "Lemon headband", "--download", into])
    trips("files --download again (all there)", ["files", "Lemon headband", "--download", into])
    try? FileManager.default.removeItem(atPath: into + "/mock-3.png")
    trips("files --download again, one missing", ["files", "Lemon headband", "--download", into])
}
