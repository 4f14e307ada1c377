import Foundation
import Testing

/// Runs the binary with a deadline: a run that hangs (the bug these tests guard against) is
/// killed with SIGKILL and shows as killed, instead of stalling the suite.
func runBounded(_ arguments: [String], deadline: Duration = .seconds(300)) async throws -> (run: CLIRun, signalled: Bool) {
    let out = temporaryFile("out"), err = temporaryFile("err")
    defer { for p in [out, err] { try? FileManager.default.removeItem(atPath: p) } }
    FileManager.default.createFile(atPath: out, contents: nil)
    FileManager.default.createFile(atPath: err, contents: nil)
    let process = Process()
    process.executableURL = CLIRun.binary
    process.arguments = arguments
    process.standardOutput = FileHandle(forWritingAtPath: out)
    process.standardError = FileHandle(forWritingAtPath: err)
    try process.run()
    let pid = process.processIdentifier
    let killer = Task { try await Task.sleep(for: deadline); kill(pid, SIGKILL) }
    await process.exited()
    killer.cancel()
    let run = CLIRun(status: process.terminationStatus, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                     stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    return (run, process.terminationReason == .uncaughtSignal)
}

/// A FIFO, a directory or a device where a file is expected is one
/// clear error line, never a hang; a state directory that does not exist is created.
@Suite struct FileSafetyCLITests {
    func fifo(_ name: String) -> String {
        let path = temporaryFile(name)
        #expect(mkfifo(path, 0o600) == 0)
        return path
    }

    @Test func fifoAsConfigIsRefusedNotWaitedOn() async throws {
        let config = fifo("config.toml")
        defer { unlink(config) }
        for arguments in [["check-config", config], ["run", "--simulate", "--config", config]] {
            let (run, signalled) = try await runBounded(arguments)
            #expect(!signalled && run.status == 78, "\(arguments): \(run.stderr)")
            #expect(run.stderr == "roundclock: \(config): is a FIFO (named pipe), not a regular file\n")
        }
    }

    @Test func fifoAsBoardIsRefusedNotWaitedOn() async throws {
        let board = fifo("board.toml"), config = temporaryFile("fifo-board.toml")
        defer { unlink(board); unlink(config) }
        try "board = \"\(board)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let direct = try await runBounded(["run", "--simulate", "--board", board])
        #expect(!direct.signalled && direct.run.status == 78, "\(direct.run.stderr)")
        #expect(direct.run.stderr == "roundclock: \(board): is a FIFO (named pipe), not a regular file\n")
        let viaConfig = try await runBounded(["check-config", config])
        #expect(!viaConfig.signalled && viaConfig.run.status == 78 && viaConfig.run.stderr.contains("is a FIFO"), "\(viaConfig.run.stderr)")
        let simulate = try await runBounded(["simulate", "--virtual", "--board", board])
        #expect(!simulate.signalled && simulate.run.status == 64 && simulate.run.stderr.contains("is a FIFO"), "\(simulate.run.stderr)")
    }

    @Test func directoryAsConfigIsOneLine() async throws {
        let (run, _) = try await runBounded(["check-config", "/tmp"])
        #expect(run.status == 78 && run.stderr == "roundclock: /tmp: is a directory, not a regular file\n")
    }

    @Test func fifoAsStateFileIsSetAsideAndTheRunGoesOn() async throws {
        let dir = temporaryFile("fifo-state")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        #expect(mkfifo(dir + "/state", 0o600) == 0)
        let (run, signalled) = try await runBounded(["run", "--simulate", "--virtual", "--state-dir", dir, "--until", "2"])
        #expect(!signalled && run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("is a FIFO (named pipe), not a regular file); set aside as \(dir)/state.corrupt-"), "\(run.stderr)")
        let entries = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(entries.count == 2 && entries[0] == "state" && entries[1].hasPrefix("state.corrupt-"), "\(entries)")
    }

    /// `--frames` into a FIFO nobody reads fails at once (ENXIO) with exit 73; a FIFO being
    /// read gets the frames.
    @Test func framesIntoAFIFO() async throws {
        let path = fifo("frames.jsonl")
        defer { unlink(path) }
        for arguments in [["simulate", "--virtual", "--frames", path], ["run", "--simulate", "--virtual", "--until", "2", "--frames", path]] {
            let (run, signalled) = try await runBounded(arguments)
            #expect(!signalled && run.status == 73, "\(arguments): \(run.stderr)")
            #expect(run.stderr == "roundclock: \(path): open for writing failed: a FIFO with no reader (open it for reading first, or use -)\n")
        }
        // With a reader: the frames arrive through the pipe.
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let (run, _) = try await runBounded(["run", "--simulate", "--virtual", "--program", "countdown:0:05", "--until", "2", "--frames", path])
        #expect(run.status == 0, "\(run.stderr)")
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = read(reader, &buffer, buffer.count)
        #expect(n > 0 && String(decoding: buffer[0..<max(n, 0)], as: UTF8.self).hasPrefix("{\"t\": 0.000, \"panel\": \"time\""))
    }

    /// A pipe whose reader holds it open but never reads: the clock must not stall on it.
    /// Hours of virtual frames fill the pipe and the 1 MiB that may wait; the run still ends
    /// on time, the frames file is reported (exit 74, one line), the display went on.
    @Test func framesIntoAPipeNobodyReadsNeverStallTheClock() async throws {
        let path = fifo("stalled.jsonl")
        defer { unlink(path) }
        let reader = open(path, O_RDONLY | O_NONBLOCK) // open, never read
        #expect(reader >= 0)
        defer { close(reader) }
        for arguments in [["simulate", "--virtual", "--no-tty", "--program", "stopwatch", "--until", "6:00:00", "--frames", path],
                          ["run", "--simulate", "--virtual", "--program", "stopwatch", "--events", "0:start", "--until", "6:00:00",
                           "--frames", path]] {
            let (run, signalled) = try await runBounded(arguments)
            #expect(!signalled && run.status == 74, "\(arguments): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("roundclock: ") }
            #expect(lines.count == 1 && lines[0].hasPrefix("roundclock: \(path): write failed: its reader stopped reading ("),
                    "\(run.stderr)")
            var drain = [UInt8](repeating: 0, count: 65_536)
            while read(reader, &drain, drain.count) > 0 {} // empty the pipe for the next run
        }
    }

    @Test func framesToStandardOutput() async throws {
        let (run, _) = try await runBounded(["run", "--simulate", "--virtual", "--program", "countdown:0:03", "--until", "1", "--frames", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("{\"t\": 0.000, \"panel\": \"time\", \"text\": \" 0:03\""), "\(run.stdout)")
    }

    /// The state directory is created (like `mkdir -p`, 0755) and the round survives
    /// kill -9.
    @Test func missingStateDirectoryIsCreatedAndKeepsTheRound() async throws {
        let top = temporaryFile("new-state")
        let dir = top + "/deeper/rc-state"
        let frames = temporaryFile("created.jsonl"), second = temporaryFile("created2.jsonl")
        defer { for p in [top, frames, second] { try? FileManager.default.removeItem(atPath: p) } }
        let process = Process()
        process.executableURL = CLIRun.binary
        process.arguments = ["run", "--simulate", "--program", "countdown:30:00", "--events", "0.1:start", "--state-dir", dir, "--frames", frames]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Running: the state file says so (it is written on the START press).
        let deadline = Date().addingTimeInterval(30)
        func saved() -> Bool { ((try? String(contentsOfFile: dir + "/state", encoding: .utf8)) ?? "").contains("state=running") }
        while !saved(), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        kill(process.processIdentifier, SIGKILL)
        await process.exited()
        #expect(saved(), "the running round was saved in the created directory")
        // 0755 as StateDirectory= makes it, less this process's umask (read from /proc: umask(2)
        // itself would change it for the tests running alongside).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let umaskLine = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        let mask = mode_t(umaskLine.flatMap { Int($0.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8) } ?? 0o022)
        var info = stat()
        #expect(stat(dir, &info) == 0 && info.st_mode & 0o777 == 0o755 & ~mask)
        let (run, _) = try await runBounded(["run", "--simulate", "--program", "countdown:30:00", "--state-dir", dir, "--until", "0.5", "--frames", second])
        #expect(run.status == 0 && run.stderr.contains("resumed exactly (same boot)"), "\(run.stderr)")
        #expect(try jsonLines(second).first?.object["state"] as? String == "running")
    }

    /// A state directory that cannot be made or written stops nothing: the clock runs and
    /// shows the time, with one error line naming the directory and errno.
    @Test(arguments: ["/dev/null/state", "/proc/roundclock-state"])
    func stateDirectoryThatCannotBeCreatedIsOneLineAndTheRunGoesOn(_ dir: String) async throws {
        let frames = temporaryFile("unkept.jsonl")
        defer { unlink(frames) }
        let (run, _) = try await runBounded(["run", "--simulate", "--virtual", "--program", "countdown:0:05", "--events", "0:start",
                                             "--until", "3", "--state-dir", dir, "--frames", frames])
        #expect(run.status == 0, "\(run.stderr)")
        let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") }
        #expect(errors.count == 1 && errors[0].hasPrefix("error: state: cannot save the session in \(dir): ")
                && errors[0].contains("(errno "), "\(run.stderr)")
        let times = try jsonLines(frames).compactMap { $0.object["panel"] as? String == "time" ? $0.object["text"] as? String : nil }
        #expect(times.prefix(4) == [" 0:05", " 0:04", " 0:03", " 0:02"], "the clock counted: \(times)")
    }

    @Test func stateDirectoryThatIsAFileIsOneLineAndTheRunGoesOn() async throws {
        let file = temporaryFile("plain")
        defer { unlink(file) }
        FileManager.default.createFile(atPath: file, contents: Data())
        let (run, _) = try await runBounded(["run", "--simulate", "--virtual", "--until", "1", "--state-dir", file])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("error: state: cannot save the session in \(file): use \(file): not a directory; "
                                    + "the clock runs on without keeping it\n"), "\(run.stderr)")
    }
}
