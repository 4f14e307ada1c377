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
        // The link to the clock: its control socket (lines framed, reconnects), the hub that
        // hands its state lines to pages and services, the program it runs as it defined it,
        // and the one check of a button command before it is sent.
        .target(name: "ClockLink", dependencies: [
            .product(name: "ControlProtocol", package: "RoundClock"),
            .product(name: "JSON", package: "RoundClock"),
            .product(name: "_RoundClockCore", package: "RoundClock"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // Connection admission as one pure policy: the table's state and an event in, a
        // decision out; the bounds it keeps.
        .target(name: "ConnectionAdmission"),
        // Access: the PIN and its guesses, sessions, known devices, the connection table and
        // the guard in front of every connection, allowed hosts, security headers.
        .target(name: "GatewayAccess", dependencies: [
            "ConnectionAdmission",
            .product(name: "ControlProtocol", package: "RoundClock"),
            .product(name: "JSON", package: "RoundClock"),
            .product(name: "_RoundClockConfig", package: "RoundClock"),
            .product(name: "_RoundClockPlatform", package: "RoundClock"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // MQTT and Home Assistant: the clock's topics, commands, availability and discovery.
        .target(name: "ClockMQTT", dependencies: [
            "ClockLink", "MosquittoClient",
            .product(name: "ControlProtocol", package: "RoundClock"),
            .product(name: "JSON", package: "RoundClock"),
            .product(name: "_RoundClockCore", package: "RoundClock"),
            .product(name: "_RoundClockPlatform", package: "RoundClock"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // Clocks in sync: the group's session (`GroupSessionBridge`) and time
        // (`GroupTimeBridge`) between the broker, the pure `GroupSync` and the clock link.
        .target(name: "GroupBridges", dependencies: [
            "ClockLink", "GroupSync", "MosquittoClient",
            .product(name: "ControlProtocol", package: "RoundClock"),
            .product(name: "_RoundClockPlatform", package: "RoundClock"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The pages and their sockets (phone, TV, editor), the routes and the server that
        // puts the gateway together.
        .target(name: "RemoteGateway", dependencies: [
            "ClockLink", "ClockMQTT", "ConnectionAdmission", "GatewayAccess", "GroupBridges", "MosquittoClient",
            .product(name: "_RoundClockCore", package: "RoundClock"),
            .product(name: "ControlProtocol", package: "RoundClock"),
            .product(name: "JSON", package: "RoundClock"),
            .product(name: "_RoundClockConfig", package: "RoundClock"),
            .product(name: "_RoundClockPlatform", package: "RoundClock"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The command: options, config, PIN, then the server until SIGTERM.
        .executableTarget(name: "roundclock-gateway", dependencies: [
            "ClockMQTT", "ConnectionAdmission", "GatewayAccess", "GroupBridges", "RemoteGateway", "MosquittoClient",
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
            "ClockLink", "ClockMQTT", "ConnectionAdmission", "GatewayAccess", "RemoteGateway", "roundclock-gateway", "MosquittoClient",
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
