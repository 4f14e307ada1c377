import Foundation
import Testing

/// SIGTERM, SIGINT and SIGHUP stop `run` gracefully (exit 0, state saved,
/// shutdown picture drawn) from its very start, never by the default disposition.
@Suite(.serialized) struct SignalTests {
    /// posix_spawn(3) of the binary with `blocked` in its initial signal mask
    /// (POSIX_SPAWN_SETSIGMASK), stdout and stderr into files.
    static func spawn(_ arguments: [String], blocking blocked: [Int32], stderr: String) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in blocked { sigaddset(&mask, signal) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let path = CLIRun.binary.path
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        return pid
    }

    /// waitpid(2) on a thread of its own; after `deadline` the process is killed (SIGKILL),
    /// which the returned status then shows. Returns the raw wait status.
    static func wait(_ pid: pid_t, deadline: Duration = .seconds(60)) async throws -> Int32 {
        let killer = Task { try await Task.sleep(for: deadline); kill(pid, SIGKILL) }
        defer { killer.cancel() }
        return try await onOwnThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            return status
        }
    }

    static func describe(_ status: Int32) -> String {
        status & 0x7f == 0 ? "exit \((status >> 8) & 0xff)" : "killed by signal \(status & 0x7f)"
    }

    /// A signal sent the instant the process exists. The parent blocks it across exec(2),
    /// so it is pending before `main` runs, whatever the timing: the earliest signal `run`
    /// can ever see. It must not be discarded when the service group sets SIG_IGN (the clock
    /// would run on), nor, unblocked, kill the process by the default disposition.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func signalAtSpawnStopsGracefully(_ signal: Int32) async throws {
        let dir = temporaryFile("early-state"), err = temporaryFile("early.err")
        defer { for p in [dir, err] { try? FileManager.default.removeItem(atPath: p) } }
        for iteration in 1...(signal == SIGTERM ? 30 : 5) {
            let pid = try Self.spawn(["run", "--simulate", "--program", "tabata", "--state-dir", dir], blocking: [SIGTERM, SIGINT, SIGHUP], stderr: err)
            kill(pid, signal)
            let status = try await Self.wait(pid)
            let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
            #expect(Self.describe(status) == "exit 0", "iteration \(iteration): \(stderr)")
            #expect(stderr.contains("info: stopped"), "iteration \(iteration): \(stderr)")
            #expect(FileManager.default.fileExists(atPath: dir + "/state"), "the state was saved")
            if Self.describe(status) != "exit 0" { break }
        }
    }

    /// SIGTERM as soon as the process exists, with nothing blocked: a signal that lands
    /// before `main` (in the dynamic loader) still kills it by the default disposition —
    /// no program can act before its first instruction — but one that lands after must
    /// stop it gracefully. Each run ends by exit 0 or by SIGTERM, never anything else
    /// (no crash, no hang, no other status).
    @Test func sigtermRightAfterSpawnNeverCrashesOrHangs() async throws {
        let err = temporaryFile("spawn.err")
        defer { try? FileManager.default.removeItem(atPath: err) }
        var graceful = 0
        for iteration in 1...30 {
            let pid = try Self.spawn(["run", "--simulate", "--program", "tabata"], blocking: [], stderr: err)
            kill(pid, SIGTERM)
            let status = try await Self.wait(pid)
            #expect(["exit 0", "killed by signal 15"].contains(Self.describe(status)), "iteration \(iteration): \(Self.describe(status))")
            if status == 0 { graceful += 1 }
        }
        print("SIGTERM right after spawn: \(graceful) of 30 runs stopped gracefully, the rest before main")
    }

    /// SIGHUP mid-run is a graceful stop like SIGTERM: state saved, blank picture last.
    @Test func sighupMidRunSavesAndDrawsTheShutdownPicture() async throws {
        let dir = temporaryFile("hup-state"), frames = temporaryFile("hup.jsonl"), err = temporaryFile("hup.err")
        defer { for p in [dir, frames, err] { try? FileManager.default.removeItem(atPath: p) } }
        let pid = try Self.spawn(["run", "--simulate", "--program", "tabata", "--events", "0.1:start", "--state-dir", dir, "--frames", frames],
                                 blocking: [], stderr: err)
        let deadline = Date().addingTimeInterval(30)
        func running() -> Bool { ((try? jsonLines(frames)) ?? []).contains { $0.object["state"] as? String == "running" } }
        while !running(), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        kill(pid, SIGHUP)
        let status = try await Self.wait(pid)
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        #expect(Self.describe(status) == "exit 0", "\(stderr)")
        #expect(stderr.contains("info: received SIGHUP; stopping"), "\(stderr)")
        let state = try String(contentsOfFile: dir + "/state", encoding: .utf8)
        #expect(state.contains("program=tabata") && state.contains("state=running"))
        let records = try jsonLines(frames).map(\.object)
        #expect(records.suffix(3).map { $0["panel"] as? String } == ["time", "round", "phase"])
        #expect(records.suffix(3).allSatisfy { $0["ram"] as? String == String(repeating: "0", count: 32) && $0["text"] as? String == "    " },
                "\(records.suffix(3))")
    }
}
