// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "tracker",
    // macOS 13 or later; Linux with the Swift 6 toolchain. (These machines build for Linux; macOS is checked by reading.)
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "tracker", targets: ["tracker"]),
        .executable(name: "fake-airtable", targets: ["fake-airtable"]),
    ],
    targets: [
        .executableTarget(name: "tracker", dependencies: ["TrackerKit"]),
        .target(name: "TrackerKit", dependencies: ["CCurl"]),
        // libcurl's easy interface, loaded at run time (no -dev package needed): the Linux transport that waits idle.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // A loopback stand-in for Airtable's Web API, used by the end-to-end tests and the benchmark.
        .target(
            name: "FakeAirtable",
            resources: [.copy("Resources/design-projects.json"), .copy("Resources/design-projects.json.gz")]),
        .executableTarget(name: "fake-airtable", dependencies: ["FakeAirtable"]),
        // Measures the built tracker against the fake: `swift build -c release && .build/release/benchmark`.
        .executableTarget(name: "benchmark", dependencies: ["FakeAirtable"]),
        .executableTarget(name: "measure-child"),
        .testTarget(name: "TrackerKitTests", dependencies: ["TrackerKit", "FakeAirtable"]),
        .testTarget(name: "EndToEndTests", dependencies: ["FakeAirtable", "TrackerKit"]),
    ]
)
