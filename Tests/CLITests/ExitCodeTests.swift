import Foundation
import Testing

/// The exit status table of docs/command-line.md, row by row, for every subcommand a row
/// applies to. Each failing row also prints exactly one line on stderr.
@Suite struct ExitCodeTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A board file like boards/pi4.toml on an I2C bus that does not exist.
    static func missingBusBoard() throws -> String {
        let board = temporaryFile("bus250.toml")
        try String(contentsOfFile: repo.appendingPathComponent("boards/pi4.toml").path, encoding: .utf8)
            .replacingOccurrences(of: "bus = 1", with: "bus = 250").write(toFile: board, atomically: true, encoding: .utf8)
        return board
    }

    func expect(_ arguments: [String], exits status: Int32, oneLine: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (run, signalled) = try await runBounded(arguments)
        #expect(!signalled && run.status == status, "\(arguments): \(run.status) \(run.stderr)", sourceLocation: sourceLocation)
        if oneLine {
            let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("roundclock: ") }
            #expect(errors.count == 1, "\(arguments): one error line: \(run.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func zeroOnSuccess() async throws {
        let config = temporaryFile("ok.toml")
        defer { unlink(config) }
        try "program = \"tabata\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        for arguments in [["simulate", "--virtual", "--program", "countdown:0:02"], ["run", "--simulate", "--virtual", "--until", "1"],
                          ["programs"], ["render", "--display", "seg7x4", "12:34"], ["check-config", config],
                          ["test-display", "--simulate", "--step", "0.01"], ["probe"]] {
            try await expect(arguments, exits: 0, oneLine: false)
        }
    }

    @Test func sixtyFourOnBadUsage() async throws {
        for command in ["simulate", "run", "programs", "render", "check-config", "probe", "test-display", "bench"] {
            try await expect([command, "--no-such-option"], exits: 64)
        }
        try await expect(["no-such-command"], exits: 64)
        try await expect(["programs", "countdown:xx"], exits: 64)
        try await expect(["simulate", "--board", "/nonexistent/board.toml"], exits: 64)
        try await expect(["test-display"], exits: 64)
    }

    @Test func sixtyNineOnMissingHardware() async throws {
        let board = try Self.missingBusBoard()
        defer { unlink(board) }
        try await expect(["run", "--board", board], exits: 69)
        try await expect(["test-display", "--board", board, "--step", "0.01"], exits: 69)
    }

    @Test func seventyThreeWhenAnOutputCannotBeCreated() async throws {
        for arguments in [["simulate", "--virtual", "--frames", "/nonexistent/dir/f.jsonl"],
                          ["run", "--simulate", "--virtual", "--until", "1", "--frames", "/nonexistent/dir/f.jsonl"],
                          ["run", "--simulate", "--virtual", "--until", "1", "--frames", "/tmp"]] {
            try await expect(arguments, exits: 73)
        }
        // A state directory that cannot be made is an error line, not an exit status.
        try await expect(["run", "--simulate", "--virtual", "--until", "1", "--state-dir", "/dev/null/state"], exits: 0, oneLine: false)
    }

    /// The frames of a whole boxing session (far more than a pipe holds) go into a pipe
    /// whose reader waits for the first bytes, then goes away: EPIPE
    /// (SIGPIPE is ignored), reported once at the end, exit 74; never a kill by SIGPIPE.
    @Test(arguments: [["simulate", "--virtual", "--program", "boxing"], ["run", "--simulate", "--virtual", "--program", "boxing", "--events", "0:start", "--until", "2900"]])
    func seventyFourWhenWritingTheFramesFails(_ arguments: [String]) async throws {
        let path = temporaryFile("epipe.jsonl")
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        let process = Process()
        process.executableURL = CLIRun.binary
        process.arguments = arguments + ["--frames", path]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait (poll(2) on a thread of its own, not a pool thread; generous deadline) until the
        // first frames are in the pipe, then close it.
        let ready = try await onOwnThread {
            var fds = [pollfd(fd: reader, events: Int16(POLLIN), revents: 0)]
            return poll(&fds, 1, 60_000)
        }
        #expect(ready == 1)
        close(reader)
        await process.exited()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 74, "\(stderr)")
        // The writer never blocks on the pipe (docs/command-line.md, frames file): the
        // reader's close is seen as EPIPE, or, if the virtual run ended first, as frames left
        // untaken when it stopped waiting for them. Either way one line and exit 74.
        #expect(stderr.contains("roundclock: \(path): write failed: Broken pipe (errno 32)\n")
                || stderr.contains("roundclock: \(path): write failed: its reader did not take the last "), "\(stderr)")
    }

    @Test func seventyEightOnABadConfigOrBoardFile() async throws {
        let config = temporaryFile("bad.toml")
        defer { unlink(config) }
        try "program = \"boxen\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        try await expect(["check-config", config], exits: 78)
        try await expect(["run", "--simulate", "--config", config], exits: 78)
        try await expect(["run", "--simulate", "--board", "/nonexistent/board.toml"], exits: 78)
    }
}
