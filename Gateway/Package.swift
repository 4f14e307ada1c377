// swift-tools-version: 6.2
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

/// The phone remote's gateway, `roundclock-gateway`: a package apart from the
/// clock, so the clock's package keeps its small dependency graph, builds with Swift 6.0 and
/// links no network library. It reaches the clock only through the control socket's wire
/// contract; from the root package it takes that contract (`ControlProtocol`, `JSON`: the
/// clock's own parser checks every command here first), the config file's reader
/// (`[remote]`, `[mqtt]`, the programs), the syscall layer and the shared one-line errors
/// (these through the root's underscored, internal products), and no driver. MQTT goes
/// through libmosquitto, the Mosquitto project's client library.
let package = Package(
    name: "RoundClockGateway",
    products: [
        .executable(name: "roundclock-gateway", targets: ["roundclock-gateway"]),
    ],
    dependencies: [
        .package(name: "RoundClock", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Clocks in sync: the group session message and one member's state
        // machine, pure (no NIO, no Foundation): the gateway's GroupSyncService feeds it.
        .target(name: "GroupSync", dependencies: [
            .product(name: "JSON", package: "RoundClock"),
            .product(name: "ControlProtocol", package: "RoundClock"),
        ]),
        // libmosquitto (Debian libmosquitto-dev), the Mosquitto project's MQTT client library.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // An MQTT client over libmosquitto: its network thread, reconnects, subscriptions
        // with handlers, QoS 1 publishing. Shared by the clock's topics and the group sync.
        .target(name: "MosquittoClient", dependencies: [
            "CMosquitto", .product(name: "_RoundClockPlatform", package: "RoundClock"), .product(name: "Logging", package: "swift-log"),
        ]),
        // The gateway: link to the clock's socket, sessions, PIN and its rate limit, routes, TLS.
        .target(name: "RemoteGateway", dependencies: [
            "MosquittoClient", "GroupSync",
            .product(name: "_RoundClockCore", package: "RoundClock"),
            .product(name: "ControlProtocol", package: "RoundClock"),
            .product(name: "JSON", package: "RoundClock"),
            .product(name: "_RoundClockConfig", package: "RoundClock"),
            .product(name: "_RoundClockPlatform", package: "RoundClock"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The command: options, config, PIN, then the server until SIGTERM.
        .executableTarget(name: "roundclock-gateway", dependencies: [
            "RemoteGateway", "MosquittoClient",
            .product(name: "_RoundClockConfig", package: "RoundClock"),
            .product(name: "_RoundClockPlatform", package: "RoundClock"),
            .product(name: "_CommandLineSupport", package: "RoundClock"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Unit tests, the built binary, and the end-to-end checks in Tests/e2e (Python:
        // a real clock, the gateway, headless Chromium).
        .testTarget(name: "RemoteGatewayTests", dependencies: [
            "RemoteGateway", "roundclock-gateway", "MosquittoClient",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ControlProtocol", package: "RoundClock"),
            .product(name: "_TestSupport", package: "RoundClock"),
            .product(name: "_RoundClockConfig", package: "RoundClock"),
            .product(name: "_RoundClockCore", package: "RoundClock"),
            .product(name: "JSON", package: "RoundClock"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOTLS", package: "swift-nio"),
        ]),
        .testTarget(name: "GroupSyncTests", dependencies: [
            "GroupSync",
            .product(name: "_RoundClockCore", package: "RoundClock"),
            .product(name: "ControlProtocol", package: "RoundClock"),
            .product(name: "JSON", package: "RoundClock"),
            .product(name: "_TestSupport", package: "RoundClock"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
