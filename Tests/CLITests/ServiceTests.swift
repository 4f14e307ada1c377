import Foundation
import Testing
import TestSupport

/// `roundclock run` as a service: signals, persistence across kill -9, config errors, sd_notify.
@Suite(.serialized) struct ServiceTests {
    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = CLIRun.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, err)
    }

    func timeLines(_ path: String) throws -> [[String: Any]] {
        try jsonLines(path).map(\.object).filter { $0["panel"] as? String == "time" }
    }

    /// Waits (generously) until the frames file has a record matching `match`; returns when
    /// it was seen, or nil at the deadline.
    func waitForFrame(_ path: String, deadline seconds: Double = 60, _ match: ([String: Any]) -> Bool) async throws -> Date? {
        let seen = await eventually(within: .seconds(seconds), every: .milliseconds(50)) {
            ((try? jsonLines(path)) ?? []).contains(where: { match($0.object) })
        }
        return seen ? Date() : nil
    }

    @Test func sigtermStopsGracefullyAndSavesTheState() async throws {
        let dir = temporaryFile("state"), frames = temporaryFile("sigterm.jsonl")
        defer { for p in [dir, frames] { try? FileManager.default.removeItem(atPath: p) } }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let (process, err) = try start(["run", "--simulate", "--program", "tabata", "--events", "0.1:start", "--state-dir", dir,
                                        "--frames", frames])
        let running = try await waitForFrame(frames) { $0["state"] as? String == "running" }
        #expect(running != nil, "the session started")
        process.terminate() // SIGTERM
        await process.exited()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(stderr)")
        #expect(stderr.contains("info: stopped"))
        let state = try String(contentsOfFile: dir + "/state", encoding: .utf8)
        #expect(state.contains("program=tabata") && state.contains("state=running"))
    }

    @Test(arguments: ["blank", "last"])
    func sigtermLeavesTheConfiguredPictureInTheFramesFile(onShutdown: String) async throws {
        let config = temporaryFile("shutdown.toml"), frames = temporaryFile("shutdown.jsonl")
        defer { for p in [config, frames] { try? FileManager.default.removeItem(atPath: p) } }
        // A 30 s prep: however long a loaded machine takes to stop the process after SIGTERM,
        // it is still in prep with no signal due (tabata's 10 s prep reached its 3-2-1 ticks
        // under load, and the test failed on the tick records).
        try "program = \"8 x 0:20/0:10, prep 0:30\"\n[display]\non_shutdown = \"\(onShutdown)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (process, err) = try start(["run", "--simulate", "--config", config, "--events", "0.1:start", "--frames", frames])
        // Running (the first frames are out, so the signal handlers are installed), then SIGTERM.
        let running = try await waitForFrame(frames) { $0["state"] as? String == "running" && $0["panel"] as? String == "time"
            && ($0["text"] as? String).map { ["0:29", "0:28"].contains($0.dropFirst()) } == true }
        #expect(running != nil, "the session is counting")
        process.terminate()
        await process.exited()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(stderr)")
        let records = try jsonLines(frames).map(\.object)
        let last = Dictionary(records.map { ($0["panel"] as? String ?? "", $0) }, uniquingKeysWith: { $1 })
        #expect(Set(last.keys) == ["time", "round", "phase"])
        let zeros = String(repeating: "0", count: 32)
        if onShutdown == "blank" {
            // The final records: every panel dark, as read back from the chip's RAM.
            #expect(records.suffix(3).map { $0["panel"] as? String } == ["time", "round", "phase"])
            #expect(records.suffix(3).allSatisfy { $0["ram"] as? String == zeros && $0["text"] as? String == "    " }, "\(records.suffix(3))")
        } else {
            // The running picture stays: the file ends with it, no panel was blanked.
            #expect(records.allSatisfy { $0["ram"] as? String != zeros }, "\(records.suffix(3))")
            #expect(records.last?["state"] as? String == "running" && last["phase"]?["text"] as? String == "PREP")
            // Still counting the prep down (how far depends on how long the machine took to stop it).
            let shown = (last["time"]?["text"] as? String).map { String($0.dropFirst()) }
            #expect(shown.map { ["0:30", "0:00"].contains($0) == false && $0.hasPrefix("0:") } == true, "counting: \(last)")
        }
    }

    @Test func killMinus9MidRoundThenRestartShowsTheRightSecond() async throws {
        let dir = temporaryFile("state9")
        let first = temporaryFile("k1.jsonl"), second = temporaryFile("k2.jsonl")
        defer { for p in [dir, first, second] { try? FileManager.default.removeItem(atPath: p) } }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let launched = Date()
        let (process, _) = try start(["run", "--simulate", "--program", "countdown:1:00", "--events", "0.2:start",
                                      "--state-dir", dir, "--frames", first])
        // Killed mid-round, once the first run showed 0:58 (an event, not a fixed sleep).
        let isTime58: ([String: Any]) -> Bool = { $0["panel"] as? String == "time" && $0["text"] as? String == " 0:58" }
        let observed = try #require(try await waitForFrame(first, isTime58), "the first run counts down")
        kill(process.processIdentifier, SIGKILL)
        await process.exited()
        #expect(process.terminationReason == .uncaughtSignal)
        let t58 = try #require(try timeLines(first).first(where: isTime58)?["t"] as? Double)
        let restarted = Date()
        let run = try await CLIRun.run(["run", "--simulate", "--program", "countdown:1:00", "--state-dir", dir, "--until", "1.2", "--frames", second])
        let ended = Date()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("resumed exactly (same boot)"))
        let lines = try timeLines(second)
        let shown = try #require(lines.first?["text"] as? String)
        let t2 = try #require(lines.first?["t"] as? Double)
        // 0:58 came up (58 s left) at T58, between the first run's start + t58 and when the
        // test saw it; the restarted run's first frame was drawn at W, between its launch
        // + t2 and its end. It must show ceil(58 - (W - T58)): whatever the machine's load,
        // within these bounds (a restart that lost or repeated the round falls outside).
        let most = Int((58 - restarted.addingTimeInterval(t2).timeIntervalSince(observed)).rounded(.up))
        let least = Int((58 - ended.timeIntervalSince(launched.addingTimeInterval(t58))).rounded(.up))
        let seconds = Int(shown.filter(\.isNumber))! % 100
        #expect((least...most).contains(seconds), "shows \(shown), expected 0:\(least) to 0:\(most)")
        #expect(lines.first?["state"] as? String == "running")
    }

    @Test func badConfigExits78WithOneLine() async throws {
        let config = temporaryFile("bad.toml")
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "program = \"boxen\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(["run", "--simulate", "--config", config])
        #expect(run.status == 78, "EX_CONFIG")
        #expect(run.stderr.contains(config) && run.stderr.contains("program") && run.stderr.contains("boxen"), "\(run.stderr)")
        let missing = try await CLIRun.run(["run", "--simulate", "--config", "/nonexistent/config.toml"])
        #expect(missing.status == 78 && missing.stderr.contains("/nonexistent/config.toml: cannot open"))
    }

    @Test func readyIsSentToTheNotifySocketAfterTheFirstFrame() async throws {
        let path = temporaryFile("notify.sock")
        defer { unlink(path) }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let (process, _) = try start(["run", "--simulate", "--program", "boxing", "--until", "2"], environment: ["NOTIFY_SOCKET": path])
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = recv(fd, &buffer, buffer.count, 0)
        let message = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
        #expect(message.contains("READY=1"), "got \(message)")
        #expect(message.contains("STATUS=showing 0:10 (ready)"))
        await process.exited()
        let stopping = recv(fd, &buffer, buffer.count, 0)
        #expect(stopping > 0 && String(decoding: buffer[0..<stopping], as: UTF8.self).contains("STOPPING=1"))
    }
}
