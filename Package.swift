// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "RoundClock",
    products: [
        .executable(name: "roundclock", targets: ["roundclock"]),
        .library(name: "RoundClockCore", targets: ["RoundClockCore"]),
        .library(name: "RoundClockService", targets: ["RoundClockService"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // Pure timing core: programs, sessions, formats, schedules. No Foundation, no C.
        .target(name: "RoundClockCore"),
        // Render loop, button input, frame recording. Generic over an injected Clock.
        .target(name: "RoundClockService", dependencies: ["RoundClockCore"]),
        // The `roundclock` command: parses arguments, picks backends, nothing else.
        .executableTarget(
            name: "roundclock",
            dependencies: [
                "RoundClockCore", "RoundClockService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "RoundClockCoreTests",
            dependencies: [
                "RoundClockCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "RoundClockServiceTests", dependencies: ["RoundClockService", "RoundClockCore"]),
        // Runs the built `roundclock` binary and checks its output.
        .testTarget(name: "CLITests", dependencies: ["roundclock"]),
    ],
    swiftLanguageModes: [.v6]
)
