import Foundation
import Testing

/// The hand-written man pages in man/: each renders with groff without a warning, is named
/// as its file says, is installed by its package, and names what the built binaries offer:
/// every subcommand and option of `roundclock`, every option of `roundclock-gateway` (when
/// the gateway is built; it is a package of its own). The keys of roundclock.toml(5) are
/// compared with the parser's in ConfigurationReferenceTests.
@Suite struct ManPageTests {
    @Test("each man page renders with groff -man -ww without a warning",
          arguments: ["roundclock.1", "roundclock.toml.5", "roundclock-gateway.1"])
    func rendersWithoutWarnings(file: String) async throws {
        let groff = try #require(ManPageTools.groff, "groff is not installed (Debian: groff-base); the man pages cannot be checked")
        let path = ManPageTools.root.appendingPathComponent("man/\(file)").path
        let run = try await ManPageTools.run(groff, ["-man", "-ww", "-z", "-Tutf8", path])
        #expect(run.status == 0, "groff -man -ww -z -Tutf8 man/\(file): exit \(run.status)\n\(run.stderr)")
        #expect(run.stderr.isEmpty, "groff -man -ww -z -Tutf8 man/\(file) warns:\n\(run.stderr)")
    }

    /// (file under man/, the name in its .TH line, section).
    @Test("each man page's .TH names its file and section",
          arguments: [("roundclock.1", "roundclock", "1"), ("roundclock.toml.5", "roundclock.toml", "5"),
                      ("roundclock-gateway.1", "roundclock-gateway", "1")])
    func titleLine(file: String, name: String, section: String) throws {
        let lines = try ManPageTools.source(file).components(separatedBy: "\n")
        let th = try #require(lines.first { $0.hasPrefix(".TH ") }, "man/\(file) has no .TH line")
        let words = th.split(separator: " ").map(String.init)
        #expect(words.count >= 3 && ManPageTools.plain(words[1]).lowercased() == name && words[2] == section,
                "man/\(file): \(th): expected .TH \(name.uppercased()) \(section)")
        for heading in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH SEE ALSO"] {
            #expect(lines.contains(heading), "man/\(file) has no \(heading)")
        }
    }

    @Test("the packages install the man pages")
    func packagesInstallThem() throws {
        let clock = try ManPageTools.source("../debian/manpages").split(separator: "\n").map(String.init)
        #expect(clock.contains("man/roundclock.1") && clock.contains("man/roundclock.toml.5"),
                "debian/manpages lists \(clock); expected man/roundclock.1 and man/roundclock.toml.5")
        let gateway = try ManPageTools.source("../Gateway/debian/manpages").split(separator: "\n").map(String.init)
        #expect(gateway.contains("man/roundclock-gateway.1"), "Gateway/debian/manpages lists \(gateway); expected man/roundclock-gateway.1")
    }

    @Test("roundclock(1) has a section for every subcommand and names every option of each")
    func clockPageNamesEverySubcommand() async throws {
        let source = try ManPageTools.source("roundclock.1")
        let text = ManPageTools.plain(source)
        let help = try await ManPageTools.run(ManPageTools.roundclock, ["--help"])
        #expect(help.status == 0, "roundclock --help: exit \(help.status)\n\(help.stderr)")
        let subcommands = ManPageTools.subcommands(inHelp: help.stdout)
        #expect(subcommands.count >= 7, "roundclock --help lists only \(subcommands): the parser of its SUBCOMMANDS section is out of date")
        for subcommand in subcommands {
            #expect(source.contains(".SS \"roundclock \(subcommand.replacingOccurrences(of: "-", with: "\\-"))\""),
                    "man/roundclock.1 has no section .SS \"roundclock \(subcommand)\" (roundclock --help lists it)")
            let sub = try await ManPageTools.run(ManPageTools.roundclock, [subcommand, "--help"])
            #expect(sub.status == 0, "roundclock \(subcommand) --help: exit \(sub.status)\n\(sub.stderr)")
            for option in ManPageTools.options(inHelp: sub.stdout) where !text.contains(option) {
                Issue.record("man/roundclock.1 does not name \(option) of roundclock \(subcommand) (its --help lists it)")
            }
        }
    }

    @Test("roundclock-gateway(1) names every option of the built gateway's --help",
          .enabled(if: ManPageTools.gateway != nil,
                   "Gateway/.build/{debug,release}/roundclock-gateway is not built (cd Gateway && swift build); not compared"))
    func gatewayPageNamesEveryOption() async throws {
        let gateway = try #require(ManPageTools.gateway)
        let text = ManPageTools.plain(try ManPageTools.source("roundclock-gateway.1"))
        let help = try await ManPageTools.run(gateway, ["--help"])
        #expect(help.status == 0, "roundclock-gateway --help: exit \(help.status)\n\(help.stderr)")
        let options = ManPageTools.options(inHelp: help.stdout)
        #expect(options.contains("--show-pin"), "roundclock-gateway --help lists \(options): the parser of its OPTIONS section is out of date")
        for option in options where !text.contains(option) {
            Issue.record("man/roundclock-gateway.1 does not name \(option) (roundclock-gateway --help lists it)")
        }
    }
}

/// What the man page tests read and run; the repository root is found from this file's path.
enum ManPageTools {
    /// The checkout: this file is Tests/DocsTests/ManPageTests.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built `roundclock`: it sits beside the test bundle (as Tests/CLITests finds it).
    static var roundclock: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("roundclock").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("roundclock")
    }

    /// The gateway's own build (Gateway/ is a package of its own), debug first; nil if not built.
    static var gateway: URL? {
        ["debug", "release"].map { root.appendingPathComponent("Gateway/.build/\($0)/roundclock-gateway") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// groff from PATH (Debian: groff-base, which man-db needs); nil if there is none.
    static var groff: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("groff") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A file under man/ (or `../` from there).
    static func source(_ file: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent("man").appendingPathComponent(file).standardized, encoding: .utf8)
    }

    /// Roff source as plain words: `\-` is `-`, `\&`, `\e` and font changes are undone.
    static func plain(_ roff: String) -> String {
        var text = roff.replacingOccurrences(of: #"\\f(\[[^\]]*\]|\(..|.)"#, with: "", options: .regularExpression)
        for (escape, plain) in [("\\-", "-"), ("\\&", ""), ("\\e", "\\")] {
            text = text.replacingOccurrences(of: escape, with: plain)
        }
        return text
    }

    /// The names ArgumentParser lists under SUBCOMMANDS: lines `  name   abstract`.
    static func subcommands(inHelp help: String) -> [String] {
        var inSection = false
        var names: [String] = []
        for line in help.components(separatedBy: "\n") {
            if line.hasSuffix(":") && !line.hasPrefix(" ") { inSection = line == "SUBCOMMANDS:"; continue }
            guard inSection, let match = line.firstMatch(of: /^  ([a-z][a-z0-9-]*)(  |$)/) else { continue }
            names.append(String(match.1))
        }
        return names
    }

    /// The long options ArgumentParser lists under OPTIONS (`  --name <value>`, `  -h, --help`),
    /// without --help and --version.
    static func options(inHelp help: String) -> [String] {
        var inSection = false
        var names: [String] = []
        for line in help.components(separatedBy: "\n") {
            if line.hasSuffix(":") && !line.hasPrefix(" ") { inSection = line == "OPTIONS:"; continue }
            guard inSection, let match = line.firstMatch(of: /^  (?:-[A-Za-z], )?(--[a-z0-9][a-z0-9-]*)/) else { continue }
            let name = String(match.1)
            if name != "--help" && name != "--version" { names.append(name) }
        }
        return names
    }

    struct Run: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `executable` to completion on a thread of its own (not the cooperative pool, which
    /// the suite's timing tests share), both streams captured (each is short: help texts,
    /// groff's warnings).
    static func run(_ executable: URL, _ arguments: [String]) async throws -> Run {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let process = Process()
                    process.executableURL = executable
                    process.arguments = arguments
                    var environment = ProcessInfo.processInfo.environment
                    environment["COLUMNS"] = "80"
                    process.environment = environment
                    let out = Pipe(), err = Pipe()
                    process.standardOutput = out
                    process.standardError = err
                    try process.run()
                    let stdout = out.fileHandleForReading.readDataToEndOfFile()
                    let stderr = err.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                               stderr: String(decoding: stderr, as: UTF8.self))
                })
            }
        }
    }
}
