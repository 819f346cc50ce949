// swift-tools-version:6.0
import PackageDescription

// Layers, each a target that imports only those below it, so an upward import does not compile:
//   tracker (the command line, which starts the other faces) → TrackerBoard, TrackerStdio, TrackerServe (faces that never
//   import each other; the two MCP faces frame TrackerMCP's one server) → TrackerOperations → TrackerAPI → TrackerNetwork → TrackerSystem → TrackerModel
// and beside them FakeAirtable (→ TrackerSystem), the loopback Airtable that `tracker demo` serves.
let package = Package(
    name: "tracker",
    // macOS 13 or later; Linux with the Swift 6 toolchain. (These machines build for Linux; macOS is checked by reading.)
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "tracker", targets: ["tracker"]),
        .executable(name: "fake-airtable", targets: ["fake-airtable"]),
    ],
    targets: [
        // The command line: argv parsed by hand into each command's options, its outcomes rendered (text, TSV, CSV,
        // JSON), help, man page, completion; and the wiring that opens sessions for the board and mcp.
        // Release builds on Linux drop the symbol table (the benchmark README has the sizes): what users install; tracker never
        // prints a stack trace, and debug builds keep their symbols. They link the C++ runtime statically
        // (Linking/libstdc++.so says how), so a start does not load libstdc++.so.6.
        .executableTarget(
            name: "tracker",
            dependencies: [
                "TrackerBoard", "TrackerStdio", "TrackerServe", "TrackerMCP", "TrackerOperations", "TrackerAPI",
                "FakeAirtable",
                "CTerminal",
            ],
            exclude: ["Linking"],
            linkerSettings: [
                .unsafeFlags(
                    ["-Xlinker", "--strip-all", "-L", Context.packageDirectory + "/Sources/tracker/Linking"],
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),
        // The operations every face calls (every command that reads or writes the base, and doctor and init on the
        // configuration), and what they stand on: the configuration, what is known of the base, naming, checking values,
        // import's plan, changes' snapshots, edit's forms, doctor's checks. No printing: a face renders what an
        // operation returns.
        .target(name: "TrackerOperations", dependencies: ["TrackerTeam"]),
        // `tracker board`, a face of its own: keys in, operations called in sessions the executable opens for it, the
        // screen drawn from their outcomes. It imports no other face.
        .target(name: "TrackerBoard", dependencies: ["TrackerOperations", "CTerminal"]),
        // The Model Context Protocol's one server, below the two faces that frame it: the tool table, each tool's
        // arguments decoded into its command's named arguments and its operation run in a session the executable opens,
        // the outcome's JSON, the protocol's eras and conversations. Not a face: it reads and writes no stream itself.
        .target(name: "TrackerMCP", dependencies: ["TrackerOperations"]),
        // `tracker mcp`, a face of its own: TrackerMCP's server framed as JSON-RPC over stdio (a message a line, one
        // conversation for the process's life). It imports no other face.
        .target(name: "TrackerStdio", dependencies: ["TrackerMCP"]),
        // `tracker serve`, a face of its own: TrackerMCP's server framed by HTTP, who asks (the doorkeeper), the
        // service's health, metrics and log. It imports no other face.
        .target(name: "TrackerServe", dependencies: ["TrackerMCP", "TrackerHTTP"]),
        // The team's layer over Redis: its engine (the base's budget and month, the write locks, their scripts), the copy
        // of a base's tables one process polls and the others follow (its store, scripts and lease), the writes put into
        // it, the schema the team shares. Between the API and the operations.
        .target(name: "TrackerTeam", dependencies: ["TrackerAPI"]),
        // Airtable's routes and JSON: ProjectAPIClient, the schema, formulas, record decoding.
        .target(name: "TrackerAPI", dependencies: ["TrackerNetwork"]),
        // NetworkHelper (a request in, Result<Data, AppError> out), retries, transports; the engine that paces and
        // locks on this machine's files (the team's is in TrackerTeam); Redis's wire (RESP, connections, clusters).
        .target(name: "TrackerNetwork", dependencies: ["TrackerSystem", "CCurl"]),
        // What tracker processes share on one machine: the runtime directory, file locks, a monotonic clock.
        .target(name: "TrackerSystem", dependencies: ["TrackerModel"]),
        // Projects, fields, dates, JSON reading and writing, AppError and exit codes.
        .target(name: "TrackerModel"),
        // libcurl's easy interface, loaded at run time (no -dev package needed): the Linux transport that waits idle.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // The terminal `tracker board` takes and gives back (raw mode, the alternate screen, and signal handlers that
        // restore it), and the self-pipe Ctrl-C, SIGTERM and SIGHUP reach every command by: async-signal-safe calls only.
        .target(name: "CTerminal"),
        // A loopback stand-in for Airtable's Web API: the end-to-end tests' and the benchmark's, and `tracker demo`'s, so
        // like the layers it imports only FoundationEssentials (no resource bundle: the recorded answer is in source).
        .target(name: "FakeAirtable", dependencies: ["TrackerHTTP"]),
        // The project's one HTTP/1.1 server: the fake's and `serve`'s, with bounds on what one client may take.
        .target(name: "TrackerHTTP", dependencies: ["TrackerSystem"]),
        // `openssl s_server` with an untrusted certificate, for the tests of TLS failures and trickled TLS replies.
        .target(name: "LoopbackTLS"),
        .executableTarget(name: "fake-airtable", dependencies: ["FakeAirtable"]),
        // Measures the built tracker against the fake: `swift build -c release && .build/release/benchmark`.
        .executableTarget(
            name: "benchmark",
            dependencies: ["FakeAirtable", "TrackerHTTP", "TrackerOperations", "TrackerNetwork", "TrackerModel"],
            exclude: ["README.md"]),
        .executableTarget(name: "measure-child"),
        .testTarget(
            name: "TrackerTests",
            dependencies: [
                "tracker", "TrackerOperations", "TrackerBoard", "TrackerStdio", "TrackerMCP", "FakeAirtable",
                "LoopbackTLS", "TrackerHTTP",
            ]),
        // TrackerNetwork for the test that the Redis script paces as PaceSchedule does; TrackerOperations for the
        // journal's Redis store against a real redis-server.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "FakeAirtable", "LoopbackTLS", "TrackerNetwork", "TrackerAPI", "TrackerTeam", "TrackerHTTP",
                "TrackerOperations",
            ]),
    ]
)
