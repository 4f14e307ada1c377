import Foundation

// The doc tests: README.md and docs/**/*.md are checked as rustdoc checks its doctests.
// Run them alone with `swift test --filter DocsTests`.
//
// - ```console doctest blocks run (CodeBlockTests). A line `$ CMD` is a command (a line ending
//   in ` \` continues it); the lines up to the next `$ ` are its expected output, stdout and
//   stderr together, compared line by line (trailing white space ignored); a line `...` matches
//   any number of lines; no expected line: any output. It must exit 0, or N when its expected
//   output ends with `[exit N]`. Each command runs in `bash -o pipefail -c` with stdin empty, under a
//   60 s timeout, in a scratch directory that links the checkout's top-level entries (boards/,
//   systemd/, ...); the commands of a block share the directory, in order (not the shell:
//   `cd` and variables do not carry over). PATH starts with the built binaries; TZ=UTC,
//   LC_ALL=C.UTF-8, NO_COLOR=1 and TERM=dumb, so the output is the same on every machine.
// - ```toml blocks pass `roundclock check-config`; ```toml board blocks pass it as the board a
//   config names (check-config loads and checks that board, layouts and panels included);
//   ```toml invalid blocks must fail it with 78 (EX_CONFIG).
// - Relative links and images resolve, #anchors as GitHub makes them (PageTests); no line in
//   docs/ is over 100 characters; each docs/ page starts with `# Title` and a paragraph;
//   README.md has at most 150 lines.
// - docs/configuration.md and man/roundclock.toml.5 document exactly the keys the parser
//   reads (ConfigurationReferenceTests).

/// The checkout and the built binaries the doc tests work on.
enum DocsRepo {
    /// The repository root: this file is `Tests/DocsTests/DocsSupport.swift`.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The directory holding the built `roundclock` (and `roundclock-bench`): it sits beside
    /// the test bundle, as in Tests/CLITests.
    static let binDirectory: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = testBinary.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("roundclock").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }()

    static var roundclock: URL { binDirectory.appendingPathComponent("roundclock") }

    /// README.md and every docs/**/*.md, as paths relative to the root, sorted.
    static var markdownFiles: [String] {
        ["README.md"] + docsMarkdownFiles
    }

    /// Every docs/**/*.md, relative to the root, sorted.
    static var docsMarkdownFiles: [String] {
        let docs = root.appendingPathComponent("docs")
        guard let walker = FileManager.default.enumerator(atPath: docs.path) else { return [] }
        var out: [String] = []
        while let entry = walker.nextObject() as? String {
            if entry.hasSuffix(".md") { out.append("docs/" + entry) }
        }
        return out.sorted()
    }

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func exists(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(relativePath).path)
    }
}

/// A scratch directory in which the checkout's top-level entries (boards/, systemd/, docs/,
/// ...) appear as symbolic links at their usual relative paths, so that a command or a
/// config that names `boards/pi4.toml` finds it, and the files it writes land here.
/// `.build*` are left out: commands use the binaries on PATH.
final class DocsScratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("roundclock-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for entry in try FileManager.default.contentsOfDirectory(atPath: DocsRepo.root.path) where !entry.hasPrefix(".build") {
            try FileManager.default.createSymbolicLink(at: url.appendingPathComponent(entry),
                                                       withDestinationURL: DocsRepo.root.appendingPathComponent(entry))
        }
    }

    func write(_ text: String, to name: String) throws {
        try text.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// One finished shell command: its exit status and its stdout and stderr together.
struct DocsShellRun: Sendable {
    var status: Int32
    var output: String
    var timedOut: Bool
}

enum DocsShell {
    /// A command running longer than this fails (it never blocks the suite).
    static let timeoutSeconds = 60

    /// The environment of every command: the test's own, with the built binaries first on
    /// PATH, the time zone and locale fixed so that outputs are the same on every machine
    /// (`TZ=UTC`, `LC_ALL=C.UTF-8`), and nothing that would make the clock talk to systemd
    /// or take a service's directories.
    static var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM", "STATE_DIRECTORY",
                     "RUNTIME_DIRECTORY", "LANG", "LANGUAGE"] {
            env[name] = nil
        }
        env["PATH"] = DocsRepo.binDirectory.path + ":" + (env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
        env["TZ"] = "UTC"
        env["LC_ALL"] = "C.UTF-8"
        env["NO_COLOR"] = "1"
        env["TERM"] = "dumb"
        return env
    }

    /// Runs `command` with `bash` in `directory`, stdin empty, under `timeout(1)`: after
    /// `timeoutSeconds` its whole process group gets SIGTERM, 5 s later SIGKILL. On a
    /// thread of its own, so a slow command never holds a thread of the test pool.
    static func run(_ command: String, in directory: URL) async throws -> DocsShellRun {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(command, in: directory) })
            }
        }
    }

    /// Runs `executable` with `arguments` in `directory` (no shell), as `run` does.
    static func run(_ executable: URL, _ arguments: [String], in directory: URL) async throws -> DocsShellRun {
        try await run(([executable.path] + arguments).map(quoted).joined(separator: " "), in: directory)
    }

    static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func runBlocking(_ command: String, in directory: URL) throws -> DocsShellRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["timeout", "--kill-after=5", String(timeoutSeconds), "bash", "-o", "pipefail", "-c", command]
        process.currentDirectoryURL = directory
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationStatus
        return DocsShellRun(status: status, output: String(decoding: data, as: UTF8.self), timedOut: status == 124 || status == 137)
    }
}
