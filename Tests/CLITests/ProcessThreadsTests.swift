import Foundation
import Testing

/// The `run` process while counting: one wake-up of one thread per display change.
/// Its threads and their voluntary context switches (proc(5) /proc/PID/task/TID/status,
/// `voluntary_ctxt_switches`: the thread blocked, e.g. to sleep; involuntary ones depend on
/// the machine's load and are not counted here), over a window of counting.
@Suite(.serialized) struct ProcessThreadsTests {
    struct ThreadSample: Equatable {
        var name: String
        var voluntary: Int
    }

    /// Every thread of `pid`: TID → name and voluntary switches so far.
    func sample(_ pid: Int32) throws -> [String: ThreadSample] {
        var threads: [String: ThreadSample] = [:]
        for tid in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/status", encoding: .utf8),
                  let name = status.split(separator: "\n").first(where: { $0.hasPrefix("Name:") })?.dropFirst(5),
                  let voluntary = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") })?
                      .split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            else { continue }
            threads[tid] = ThreadSample(name: name.trimmingCharacters(in: .whitespaces), voluntary: voluntary)
        }
        return threads
    }

    @Test func whileCountingOnlyTheLoopThreadWakesOncePerChange() async throws {
        let frames = temporaryFile("threads.jsonl"), socket = temporaryFile("threads.sock")
        defer { for path in [frames, socket] { try? FileManager.default.removeItem(atPath: path) } }
        let process = Process()
        process.executableURL = CLIRun.binary
        // Ended by the test; `--until` only bounds a run the test left behind.
        process.arguments = ["run", "--simulate", "--program", "countdown:5:00", "--events", "0:start", "--frames", frames,
                             "--control", socket, "--until", "600"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate() }
        // A window of at least 6 displayed changes, after the 2nd (start-up done); each
        // /proc sample is read next to a count of the time panel's frames so far.
        func timeFrames() -> Int {
            ((try? jsonLines(frames)) ?? []).filter { $0.object["panel"] as? String == "time" }.count
        }
        func timeFrames(atLeast count: Int) async throws -> Bool {
            // Asked once more after the deadline: a test runner whose threads were all busy
            // may come back to this loop only after it.
            let deadline = Date().addingTimeInterval(90)
            while Date() < deadline {
                if timeFrames() >= count { return true }
                try await Task.sleep(for: .seconds(0.05))
            }
            return timeFrames() >= count
        }
        #expect(try await timeFrames(atLeast: 2), "the countdown runs")
        let (before, framesBefore) = (try sample(process.processIdentifier), timeFrames())
        #expect(try await timeFrames(atLeast: framesBefore + 6), "the countdown goes on")
        let (after, framesAfter) = (try sample(process.processIdentifier), timeFrames())
        let changes = framesAfter - framesBefore
        // Main (parked), the event loop and the worker that writes the frames file, nothing
        // else: the control socket is served on the loop, and no thread of libdispatch's runs
        // (no worker pool, no signal source).
        #expect(after.values.map(\.name).sorted() == ["roundclock", "roundclock-loop", "roundclock-work"],
                "\(after.values.map(\.name))")
        var loop = 0, others = 0
        for (tid, now) in after {
            let switches = now.voluntary - (before[tid]?.voluntary ?? 0)
            if now.name == "roundclock-loop" { loop += switches } else if now.name != "roundclock-work" { others += switches }
        }
        // The loop thread blocks once per change (the window's edges give or take one or
        // two, as the samples and the frames counts are read a moment apart); besides the
        // worker, which writes this test's frames file after each change, no thread blocks
        // at all: no thread of libdispatch's (its pool monitor woke every second) ever started.
        #expect(changes >= 6)
        #expect(abs(loop - changes) <= 2, "loop thread: \(loop) voluntary switches for \(changes) changes")
        #expect(others <= 1, "other threads: \(others) voluntary switches over \(changes) changes: \(after)")
    }
}
