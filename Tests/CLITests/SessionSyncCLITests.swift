import Foundation
import Testing

/// Clocks in sync, the clock's side (docs/control-protocol.md): every state line carries the
/// session, `adopt` replaces it with another clock's, and `--frames-clock monotonic` lets
/// the frames of two clocks on one host be compared.
@Suite(.serialized) struct SessionSyncCLITests {
    static func realtimeNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    static func session(_ state: [String: Any]) -> [String: Any] { state["session"] as? [String: Any] ?? [:] }

    /// The `time` panel's changes in a frames file with `t` on CLOCK_MONOTONIC, as (t, text), in order.
    static func timeChanges(_ path: String) throws -> [(t: Double, text: String)] {
        try jsonLines(path).compactMap { line in
            guard line.object["panel"] as? String == "time", let t = line.object["t"] as? Double, let text = line.object["text"] as? String else { return nil }
            return (t, text)
        }
    }

    @Test func aSecondClockAdoptsTheFirstsSessionAndShowsTheSameSecond() async throws {
        let first = try ControlledClock(["--frames-clock", "monotonic", "--program", "countdown:5:00"])
        let second = try ControlledClock(["--frames-clock", "monotonic", "--program", "countdown:5:00"])
        defer { first.removeFiles(); second.removeFiles() }
        let watcher = try await first.connect()
        try watcher.send(#"{"command": "subscribe"}"#)
        let ready = try watcher.state { _ in true }
        #expect(Self.session(ready)["run"] as? String == "ready")
        #expect(Self.session(ready)["anchor_realtime_ns"] is NSNull && Self.session(ready)["adopted"] is NSNull)

        let before = Self.realtimeNanoseconds()
        let remote = try await first.connect()
        #expect(try remote.request(#"{"command": "start"}"#) == ControlSocketCLITests.ok)
        let running = try watcher.state { Self.session($0)["run"] as? String == "running" }
        let after = Self.realtimeNanoseconds()
        let shared = Self.session(running)
        #expect(shared["program"] as? String == "countdown:5:00" && shared["elapsed_before_ns"] as? Int == 0)
        #expect(shared["adopted"] is NSNull)
        let anchor = try #require(shared["anchor_realtime_ns"] as? Int64)
        // The START arrived between the two readings; generous for a loaded machine.
        #expect(anchor >= before - 1_000_000_000 && anchor <= after + 1_000_000_000, "\(before) \(anchor) \(after)")
        // The next line repeats the session verbatim (computed once per change).
        let later = try watcher.state { ControlSocketCLITests.text($0, "time") != ControlSocketCLITests.text(running, "time") }
        #expect(NSDictionary(dictionary: Self.session(later)) == NSDictionary(dictionary: shared))

        // The second clock adopts it: the echo carries the token and the same anchor.
        let echo = try await second.connect()
        try echo.send(#"{"command": "subscribe"}"#)
        _ = try echo.state { _ in true }
        let adopting = try await second.connect()
        let adopt = #"{"command": "adopt", "token": 42, "session": {"program": "countdown:5:00", "run": "running", "elapsed_before_ns": 0, "anchor_realtime_ns": \#(anchor)}}"#
        #expect(try adopting.request(adopt) == ControlSocketCLITests.ok)
        let adopted = try echo.state { Self.session($0)["adopted"] as? Int == 42 }
        #expect(adopted["state"] as? String == "running" && Self.session(adopted)["anchor_realtime_ns"] as? Int64 == anchor)

        // Both show the same seconds: wait until the second has shown three more changes.
        let shownBySecond = try echo.state { ControlSocketCLITests.text($0, "time") == " 4:54" || ControlSocketCLITests.text($0, "time") == " 4:53" }
        #expect(shownBySecond["state"] as? String == "running")
        _ = try watcher.state { ControlSocketCLITests.text($0, "time") == ControlSocketCLITests.text(shownBySecond, "time") }

        // A STOP on the second clock is a local change: `adopted` is null again.
        #expect(try adopting.request(#"{"command": "stop"}"#) == ControlSocketCLITests.ok)
        let paused = try echo.state { Self.session($0)["run"] as? String == "paused" }
        #expect(Self.session(paused)["adopted"] is NSNull && Self.session(paused)["anchor_realtime_ns"] is NSNull)
        #expect(try await first.stop() == "exit 0", "\(first.log)")
        #expect(try await second.stop() == "exit 0", "\(second.log)")
        // One log line for the adopt, with the wall clock's sync state (logged after the commit).
        let adoptLines = second.log.split(separator: "\n").filter { $0.contains("adopt token 42: countdown:5:00 running, anchor ") }
        #expect(adoptLines.count == 1 && adoptLines[0].contains("; wall clock "), "\(second.log)")

        // Every time text the second showed after adopting, while running, the first showed
        // too, on the same boundary (same host, CLOCK_MONOTONIC). A process shows each change
        // at its boundary plus its own wake-up lateness, which a loaded machine stretches to
        // tens of milliseconds, never below zero; so each clock's boundaries are taken from its
        // least late change (time shown plus seconds left: one instant for every change of one
        // anchor), and those two must agree within 20 ms. A wrong anchor shifts all of them.
        // Every gap stays under 500 ms.
        let firstChanges = try Self.timeChanges(first.frames)
        let secondChanges = try Self.timeChanges(second.frames)
        // The first text after " 5:00" is the adopt turn's (shown at once, off any boundary).
        var seenTexts: Set<String> = [" 5:00"]
        // Times only: the blank shutdown picture (`on_shutdown`) comes whenever each one stops.
        let firstShown = secondChanges.filter { $0.text.contains(":") && seenTexts.insert($0.text).inserted }
        let compared = firstShown.dropFirst()
        #expect(compared.count >= 2, "\(secondChanges)")
        var gaps: [Double] = []
        var firstEnds: [Double] = [], secondEnds: [Double] = []
        for change in compared {
            let match = try #require(firstChanges.first { $0.text == change.text }, "\(change.text) on the first clock")
            gaps.append(abs(match.t - change.t))
            let parts = change.text.trimmingCharacters(in: .whitespaces).split(separator: ":").compactMap { Double($0) }
            let left = try #require(parts.count == 2 ? parts[0] * 60 + parts[1] : nil, "\(change.text)")
            firstEnds.append(match.t + left)
            secondEnds.append(change.t + left)
        }
        let apart = abs(try #require(firstEnds.min()) - (try #require(secondEnds.min())))
        #expect(apart < 0.020 && gaps.allSatisfy { $0 < 0.500 },
                "boundaries \(apart * 1000) ms apart; gaps \(gaps); \(firstChanges) \(secondChanges)")
    }

    @Test func anAnchorFarInThePastFinishesATimedProgram() async throws {
        let clock = try ControlledClock(["--program", "countdown:0:30"])
        defer { clock.removeFiles() }
        let echo = try await clock.connect()
        try echo.send(#"{"command": "subscribe"}"#)
        _ = try echo.state { _ in true }
        let remote = try await clock.connect()
        // 1970, and far past the 100-year limit from a huge elapsed-before: clamped, finished.
        // Sent on the subscribed connection: `ok` comes once the session is replaced, after
        // the state line that shows it.
        try echo.send(#"{"command": "adopt", "token": 0, "session": {"program": "countdown:0:30", "run": "running", "elapsed_before_ns": 3162240000000000000, "anchor_realtime_ns": 0}}"#)
        var linesBeforeOK: [String] = []
        while let line = try echo.line(), line != ControlSocketCLITests.ok { linesBeforeOK.append(line) }
        #expect(linesBeforeOK.last?.contains(#""state": "finished""#) == true && linesBeforeOK.last?.contains(#""adopted": 0}"#) == true,
                "\(linesBeforeOK)")
        let finished = try #require(try JSONSerialization.jsonObject(with: Data((linesBeforeOK.last ?? "{}").utf8)) as? [String: Any])
        #expect(Self.session(finished)["adopted"] as? Int == 0)
        #expect(ControlSocketCLITests.text(finished, "time") == " 0:00")
        // Refusals are one line and leave the clock running.
        let refusals = [
            (#"{"command": "adopt", "token": 1, "session": {"program": "nope!", "run": "ready", "elapsed_before_ns": 0, "anchor_realtime_ns": null}}"#, "adopt: "),
            (#"{"command": "adopt", "token": 1, "session": {"program": "clock", "run": "paused", "elapsed_before_ns": 5, "anchor_realtime_ns": null}}"#, "only ever ready"),
            (#"{"command": "adopt", "token": 1, "session": {"program": "boxing", "run": "running", "elapsed_before_ns": 0, "anchor_realtime_ns": 9223372036854775807}}"#, "24 h ahead"),
        ]
        for (line, why) in refusals {
            let reply = try remote.request(line)
            #expect(reply.hasPrefix(#"{"ok": false, "error": ""#) && reply.contains(why), "\(reply)")
        }
        #expect(try remote.request(#"{"command": "reset"}"#) == ControlSocketCLITests.ok)
        let ready = try echo.state { $0["state"] as? String == "ready" }
        #expect(Self.session(ready)["adopted"] is NSNull)
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }

    @Test func framesClockMonotonicCountsOnClockMonotonic() async throws {
        let frames = temporaryFile("monotonic.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let before = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        let run = try await CLIRun.run(["run", "--simulate", "--program", "countdown:0:01", "--events", "0:start", "--until", "2",
                                        "--frames", frames, "--frames-clock", "monotonic"])
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let after = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try jsonLines(frames)
        #expect(!lines.isEmpty)
        for line in lines {
            let t = try #require(line.object["t"] as? Double)
            #expect(t >= before && t <= after, "\(before) <= \(t) <= \(after)")
            // Six decimals, as in real time.
            #expect(line.raw.range(of: #"^\{"t": [0-9]+\.[0-9]{6},"#, options: .regularExpression) != nil, "\(line.raw)")
        }
        // Finished one second after the start press: " 0:01" then " 0:00" one second later.
        let times = try Self.timeChanges(frames)
        let done = try #require(times.first { $0.text == " 0:00" }, "\(times)")
        #expect(abs(done.t - times[0].t - 1) < 0.5, "\(times)")
    }

    @Test func framesClockMonotonicIsRefusedInVirtualTime() async throws {
        let refused = try await CLIRun.run(["run", "--simulate", "--virtual", "--until", "5", "--frames", "-", "--frames-clock", "monotonic"])
        #expect(refused.status == 64)
        #expect(refused.stderr.split(separator: "\n").filter { $0.hasPrefix("roundclock: ") }.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("--frames-clock monotonic works only in real time"))
        let bad = try await CLIRun.run(["run", "--simulate", "--frames", "-", "--frames-clock", "boottime", "--until", "1"])
        #expect(bad.status == 64, "\(bad.stderr)")
    }
}
