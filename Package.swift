// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

/// Release builds of the targets on the render path export their generic bodies, so the
/// executables specialize the render loop, controller, board display and driver for their
/// concrete clock and device (docs/benchmarks.md "Instructions per displayed second").
let crossModule: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

/// swift-property-based has no release that Swift 6.0 can use (every manifest is
/// swift-tools-version 6.1; 2.x also needs Swift Testing's 6.1 `TestScoping`), so a Swift 6.0
/// toolchain (Debian trixie's `swiftlang` 6.0.3) resolves the package without it and the
/// property tests that use it are compiled out (`#if canImport(PropertyBased)`); they run
/// under Swift 6.1 and later (docs/install.md "Swift 6.0").
#if compiler(>=6.1)
let withPropertyBased = true
#else
let withPropertyBased = false
#endif
/// A Debian package build (`scripts/build-deb.sh`, with `ROUNDCLOCK_PACKAGE_BUILD=1` in the
/// environment) compiles the package version into `roundclock --version`. Only that target gets
/// the define, so the package build and `scripts/simulate` share every other compiled module.
let packageBuild: [SwiftSetting] =
    Context.environment["ROUNDCLOCK_PACKAGE_BUILD"] == "1" ? [.define("ROUNDCLOCK_PACKAGE_BUILD")] : []

let propertyBasedPackage: [Package.Dependency] =
    withPropertyBased ? [.package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1")] : []
let propertyBased: [Target.Dependency] =
    withPropertyBased ? [.product(name: "PropertyBased", package: "swift-property-based")] : []

let package = Package(
    name: "RoundClock",
    products: [
        .executable(name: "roundclock", targets: ["roundclock"]),
        .executable(name: "roundclock-bench", targets: ["roundclock-bench"]),
        // The control socket's wire contract, for clients such as roundclock-gateway.
        .library(name: "ControlProtocol", targets: ["ControlProtocol"]),
        .library(name: "JSON", targets: ["JSON"]),
        // Internal (underscored, no API promise), only for the nested Gateway package: the
        // timing core, the config file with its `[remote]`, `[mqtt]` and programs, the syscall
        // layer, the shared one-line errors and exit statuses, and (for its tests only) the
        // seeded generator.
        .library(name: "_RoundClockCore", targets: ["RoundClockCore"]),
        .library(name: "_RoundClockConfig", targets: ["RoundClockConfig"]),
        .library(name: "_RoundClockPlatform", targets: ["Platform"]),
        .library(name: "_CommandLineSupport", targets: ["CommandLineSupport"]),
        .library(name: "_TestSupport", targets: ["TestSupport"]),
    ],
    // Lower bounds that Swift 6.0 can read (docs/install.md "Swift 6.0": the versions it resolves to).
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.11.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.11.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.6.0"),
    ] + propertyBasedPackage,
    targets: [
        // Pure timing core: programs, sessions, formats, schedules. No Foundation, no C.
        .target(name: "RoundClockCore", swiftSettings: crossModule),
        // Pure: the one hexadecimal formatter (I2C bytes, display RAM, U+XXXX, \u escapes). No Foundation, no C.
        .target(name: "Hex", swiftSettings: crossModule),
        // Pure: the clock's own sounds (bell, horn, beep, tick) synthesized into 16-bit PCM,
        // WAV files read and written, a session's sound track in virtual time. No Foundation, no C.
        .target(name: "Sound", swiftSettings: crossModule),
        // Pure: a strict RFC 8259 reader (bounded size and depth, UTF-8 only, one-line errors)
        // and the one JSON writer (frames file, control socket). No Foundation, no C.
        .target(name: "JSON", dependencies: ["Hex"], swiftSettings: crossModule),
        // Pure: the control socket's wire contract: request, reply and state lines (with the
        // running program's definition, a core `Program`). No Foundation, no C.
        .target(name: "ControlProtocol", dependencies: ["JSON", "RoundClockCore"], swiftSettings: crossModule),
        // Pure: fonts, Frame, backpack layouts <-> 16-byte HT16K33 display RAM.
        .target(name: "SegmentDisplay", dependencies: ["Hex"], swiftSettings: crossModule),
        // Pure: a board's panel specs (role, backpack layout, I2C address), below the drivers so
        // that the config reads boards without linking them. No Foundation, no C.
        .target(name: "BoardSpec", dependencies: ["RoundClockCore", "SegmentDisplay"], swiftSettings: crossModule),
        // Pure: the I2C device protocol (three SMBus transfers), its typed error naming bus,
        // address, transfer and errno, and errno names (periph.io conn/i2c style). No Foundation, no C.
        .target(name: "I2C", dependencies: ["Hex"], swiftSettings: crossModule),
        // Pure: HT16K33 command set, shadow-RAM driver and power-loss check over an `I2CDevice`.
        .target(name: "HT16K33", dependencies: ["Hex", "I2C"], swiftSettings: crossModule),
        // Scripted I2C device for byte-exact driver tests (periph.io i2ctest.Playback style).
        .target(name: "I2CPlayback", dependencies: ["Hex", "I2C"]),
        // Emulated HT16K33, RAM decoding and the terminal renderer.
        .target(name: "Simulation", dependencies: ["HT16K33", "I2C", "SegmentDisplay"], swiftSettings: crossModule),
        // The Linux platform, on swift-system: one error for every failed system call
        // (device or path, operation, `Errno`), EINTR retried in one place, files opened
        // without ever blocking, small files read, the state file replaced durably, the boot
        // id and clocks a resume needs, the frames file written without blocking, sd_notify,
        // the journal log handler, the shutdown signals' signalfd, the event loop (epoll).
        .target(name: "Platform", dependencies: [
            "CEventLoop",
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // epoll, timerfd, eventfd, signalfd and adjtimex, which Glibc's Swift module does not export.
        .systemLibrary(name: "CEventLoop"),
        // libasound (ALSA) behind one tiny C header: a playback PCM and a mixer control. Its
        // header and library sit on the default paths: no pkg-config, whose `-L` of the system's
        // library directory would put Debian's libgpiod v1 before a libgpiod v2 build's own.
        .systemLibrary(name: "CALSA", providers: [.apt(["libasound2-dev"])]),
        // The speaker: an ALSA playback device fed by its own thread, each sound placed on the
        // frame the device plays at the sound's instant (position timestamps), outages retried.
        .target(name: "Speaker", dependencies: ["CALSA", "Platform", "Sound"]),
        // espeak-ng behind one tiny C header: its header's types, its functions loaded with
        // dlopen(3) when a voice is asked for (the clock does not link it), synchronous synthesis
        // into a sample buffer. On the default paths, as CALSA.
        .systemLibrary(name: "CESpeak", providers: [.apt(["libespeak-ng-dev"])]),
        // The voice: phrases spoken by espeak-ng (libespeak-ng.so.1, loaded on first use) into PCM,
        // every call serialized by one lock.
        .target(name: "Voice", dependencies: ["CESpeak", "Sound"]),
        // libgpiod (v1 or v2, via pkg-config) and libi2c behind one tiny C header.
        .systemLibrary(name: "CLinuxHardware", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev", "libi2c-dev"])]),
        // Linux backends: /dev/i2c-N devices, GPIO buttons and buzzer, probing.
        // The buttons and the buzzer run as swift-service-lifecycle services.
        .target(name: "LinuxHardware", dependencies: [
            "CLinuxHardware", "Hex", "HT16K33", "I2C", "Platform", "RoundClockCore",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The panels of a board: the board display over HT16K33 drivers (outage recovery,
        // power-loss checks), what a display commit reports.
        .target(name: "Panels", dependencies: ["BoardSpec", "RoundClockCore", "SegmentDisplay", "HT16K33", "I2C"], swiftSettings: crossModule),
        // Render loop, button inbox, observers, frames file, the state file's format and saver, lifecycle. Generic over an injected Clock.
        .target(name: "RoundClockService", dependencies: [
            "RoundClockCore", "SegmentDisplay", "Hex", "JSON", "ControlProtocol", "Panels", "Platform", "Sound",
            .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: crossModule),
        // Pure: a strict TOML 1.0 reader with line and column in every error. No Foundation, no C.
        .target(name: "TOML", dependencies: ["Hex"]),
        // Board files and the config file: strict TOML reading with clear errors; the
        // config's `[sound]` reads the user's WAV files through `Sound`.
        .target(
            name: "RoundClockConfig",
            dependencies: ["RoundClockCore", "BoardSpec", "Hex", "Platform", "SegmentDisplay", "Sound", "TOML"]
        ),
        // The card's `roundclock.toml` applied at boot (`roundclock apply-card`): the clock's
        // configuration, host name, time zone and Wi-Fi written as the system's own files.
        .target(name: "CardSetup", dependencies: ["Hex", "Platform", "RoundClockConfig", "RoundClockCore"]),
        // Timing and cost benchmarks (`roundclock-bench`): our loop against naive ones, same run.
        .target(name: "RoundClockBench", dependencies: [
            "CALSA", "JSON", "Sound", "RoundClockCore", "RoundClockService", "RoundClockConfig", "Panels", "Platform", "Simulation", "HT16K33", "LinuxHardware", "ControlProtocol",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // What both commands share: exit statuses, one-line usage errors, option range checks.
        .target(name: "CommandLineSupport", dependencies: [
            "RoundClockCore", "TOML", "JSON", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The `roundclock` command: parses arguments, picks backends, nothing else. No benchmarks.
        .executableTarget(
            name: "roundclock",
            dependencies: [
                "RoundClockCore", "RoundClockService", "RoundClockConfig", "BoardSpec", "Panels", "Platform", "SegmentDisplay", "Hex", "HT16K33", "I2C", "Simulation", "LinuxHardware", "ControlProtocol", "JSON",
                "Sound", "Speaker", "Voice", "CardSetup", "TOML",
                "CommandLineSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: packageBuild
        ),
        // The `roundclock-bench` command: the benchmarks, an executable apart (swift-nio's perf tester style).
        .executableTarget(
            name: "roundclock-bench",
            dependencies: [
                "RoundClockBench", "RoundClockCore", "RoundClockService", "LinuxHardware", "Platform", "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Test helpers shared by test targets (a seeded generator, malformed control requests); no executable links it.
        .target(name: "TestSupport"),
        .testTarget(
            name: "RoundClockCoreTests",
            dependencies: ["RoundClockCore", "TestSupport"] + propertyBased
        ),
        .testTarget(name: "RoundClockServiceTests", dependencies: ["RoundClockService", "ControlProtocol", "TestSupport", "Sound", "BoardSpec", "Panels", "Platform", "RoundClockCore", "Simulation", "I2CPlayback", "HT16K33", "I2C", "SegmentDisplay", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform"]),
        .testTarget(name: "LinuxHardwareTests", dependencies: [
            "LinuxHardware", "Platform", "RoundClockCore", "TestSupport",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "TOMLTests", dependencies: ["TOML", "TestSupport"], exclude: ["Corpus", "generate_corpus.py"]),
        .testTarget(name: "RoundClockConfigTests", dependencies: ["RoundClockConfig", "BoardSpec", "SegmentDisplay", "RoundClockCore", "Sound", "TOML", "TestSupport"], exclude: ["BadConfigs"]),
        .testTarget(name: "SegmentDisplayTests", dependencies: ["SegmentDisplay", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "HexTests", dependencies: ["Hex"]),
        .testTarget(name: "CardSetupTests", dependencies: ["CardSetup", "RoundClockConfig"]),
        .testTarget(name: "SoundTests", dependencies: ["Sound", "TestSupport"]),
        .testTarget(name: "SpeakerTests", dependencies: ["Speaker", "Sound", "Platform"]),
        .testTarget(name: "VoiceTests", dependencies: ["Voice", "Sound"]),
        // The JSON reader and writer, and the control socket's wire contract on top of them.
        .testTarget(name: "JSONTests", dependencies: ["JSON", "ControlProtocol", "RoundClockCore", "TestSupport"] + propertyBased),
        .testTarget(name: "HT16K33Tests", dependencies: ["HT16K33", "I2C", "I2CPlayback", "TestSupport"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "HT16K33", "I2C", "SegmentDisplay", "TestSupport"]),
        .testTarget(name: "RoundClockBenchTests", dependencies: ["RoundClockBench", "RoundClockCore", "RoundClockService", "Panels"]),
        // Runs the built `roundclock` and `roundclock-bench` binaries and checks their output.
        .testTarget(name: "CLITests", dependencies: ["roundclock", "roundclock-bench", "TestSupport", "Platform", "Sound", "Voice"]),
        // The docs are tested: README.md, docs/ and the man pages against the built binaries
        // and the config parser (`swift test --filter DocsTests`). The executables are
        // dependencies so that they are built before the tests run them.
        .testTarget(name: "DocsTests", dependencies: ["roundclock", "roundclock-bench", "RoundClockConfig"]),
        // Both packages' declared dependencies against their files' `import` lines, and their
        // targets against docs/design.md "Targets".
        .testTarget(name: "PackageTests"),
    ],
    swiftLanguageModes: [.v6]
)
