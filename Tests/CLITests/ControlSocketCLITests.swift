import Foundation
import Testing
import TestSupport

/// `roundclock run --control PATH` (docs/control-protocol.md). Commands act as their buttons
/// (docs/buttons-and-panels.md), a subscriber sees every display change, and the frames file
/// agrees.
@Suite(.serialized) struct ControlSocketCLITests {
    static let ok = #"{"ok": true}"#

    static func text(_ state: [String: Any], _ panel: String) -> String? {
        (state["panels"] as? [String: Any])?[panel] as? String
    }

    /// The states a sequence of lines went through, each run of equal ones once.
    static func runs(_ states: [String]) -> [String] {
        states.reduce(into: []) { out, state in if out.last != state { out.append(state) } }
    }

    /// docs/control-protocol.md quotes each refusal of a bad `adjust` as the clock sends it
    /// (the `seconds` received as VALUE).
    @Test func adjustRefusalsAreTheOnesTheDocsQuote() async throws {
        let clock = try ControlledClock()
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/control-protocol.md")
        // A code span may wrap: the page's lines joined by spaces.
        let page = try String(contentsOf: docs, encoding: .utf8).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for request in [#"{"command": "adjust"}"#, #"{"command": "adjust", "seconds": 0}"#,
                        #"{"command": "adjust", "seconds": 601}"#, #"{"command": "adjust", "seconds": 1.5}"#] {
            let reply = try remote.request(request)
            let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
            let received = try #require(object?["error"] as? String, "\(request): \(reply)")
            let value = received.hasPrefix(#""seconds" is "#) ? received.dropFirst(#""seconds" is "#.count).prefix { $0 != ";" } : ""
            let error = value.isEmpty ? received : received.replacingOccurrences(of: #""seconds" is \#(value);"#, with: #""seconds" is VALUE;"#)
            #expect(page.contains("`\(error)`"), "\(request) is refused with \(reply); docs/control-protocol.md does not quote it")
        }
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }

    @Test func everyCommandActsAsItsButton() async throws {
        let clock = try ControlledClock()
        defer { clock.removeFiles() }
        let subscriber = try await clock.connect()
        try subscriber.send(#"{"command": "subscribe"}"#)
        var seen: [String] = []
        func next(_ matches: @escaping ([String: Any]) -> Bool) throws -> [String: Any] {
            let state = try subscriber.state { s in seen.append(s["state"] as? String ?? "?"); return matches(s) }
            return state
        }
        let first = try next { _ in true }
        #expect(first["state"] as? String == "ready" && first["program"] as? String == "boxing")
        #expect(Self.text(first, "time") == " 0:10" && Self.text(first, "phase") == "BOX ")
        let remote = try await clock.connect()
        #expect(try remote.request(#"{"command": "stop"}"#) == Self.ok)  // STOP while ready: nothing
        #expect(try remote.request(#"{"command": "start"}"#) == Self.ok)
        let running = try next { $0["state"] as? String == "running" }
        #expect(running["phase"] as? String == "prep" && Self.text(running, "phase") == "PREP")
        // MODE mid-round does nothing, as the button; a program is refused while running.
        #expect(try remote.request(#"{"command": "mode"}"#) == Self.ok)
        #expect(try remote.request(#"{"command": "program", "program": "tabata"}"#)
                == #"{"ok": false, "error": "program: only while ready or in clock mode, as MODE (the clock is running)"}"#)
        #expect(try remote.request(#"{"command": "stop"}"#) == Self.ok)
        let paused = try next { $0["state"] as? String == "paused" }
        #expect(paused["program"] as? String == "boxing")
        #expect(try remote.request(#"{"command": "start"}"#) == Self.ok)
        _ = try next { $0["state"] as? String == "running" }
        #expect(try remote.request(#"{"command": "skip"}"#) == Self.ok)
        let work = try next { $0["phase"] as? String == "work" }
        #expect(work["round"] as? Int == 1 && work["state"] as? String == "running" && Self.text(work, "phase") == "WORK")
        // STOP held: pause, then reset, at once.
        #expect(try remote.request(#"{"command": "hold-stop"}"#) == Self.ok)
        let reset = try next { $0["state"] as? String == "ready" }
        #expect(Self.text(reset, "time") == " 0:10")
        #expect(try remote.request(#"{"command": "mode"}"#) == Self.ok)
        _ = try next { $0["program"] as? String == "mma" }
        #expect(try remote.request(#"{"command": "program", "program": "tabata"}"#) == Self.ok)
        _ = try next { $0["program"] as? String == "tabata" }
        #expect(try remote.request(#"{"command": "program", "program": "5 x 0:20/0:10"}"#) == Self.ok)
        let custom = try next { $0["rounds"] as? Int == 5 }
        #expect(custom["state"] as? String == "ready")
        #expect(try remote.request(#"{"command": "start"}"#) == Self.ok)
        _ = try next { $0["state"] as? String == "running" }
        #expect(try remote.request(#"{"command": "reset"}"#) == Self.ok)
        _ = try next { $0["state"] as? String == "ready" }
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")

        #expect(Self.runs(seen) == ["ready", "running", "paused", "running", "ready", "running", "ready"])
        // The frames file went through the same states, and the log names each action.
        let frames = try jsonLines(clock.frames).compactMap { $0.object["state"] as? String }
        #expect(Self.runs(frames) == Self.runs(seen))
        for action in ["start:", "pause:", "resume:", "skip:", "reset:", "program mma", "program tabata", "program 5 x 0:20/0:10"] {
            #expect(clock.log.contains(action), "\(action) in \(clock.log)")
        }
        #expect(!FileManager.default.fileExists(atPath: clock.socket), "socket removed at shutdown")
    }

    /// `version` through the real socket: protocol 1 and what `roundclock --version` prints.
    /// The instants of the time panel's records, without the shutdown picture.
    static func timePanelInstants(_ frames: String) throws -> [Double] {
        let records = try jsonLines(frames).map(\.object).filter { $0["panel"] as? String == "time" }
        return records.filter { $0["state"] as? String != nil && $0["text"] as? String != "    " }.compactMap { $0["t"] as? Double }
    }

    /// Someone listening and a flood of commands that mean nothing never make a panel flicker:
    /// in clock mode the time panel changes when the colon is due to, every 0.5 s, and never
    /// in between; while paused (the chip blinks by itself) it does not change.
    @Test func aSubscriberAndAFloodNeverMakeAPanelFlicker() async throws {
        for (program, press) in [("clock", #"{"command": "start"}"#), ("countdown:5:00", #"{"command": "mode"}"#)] {
            let clock = try ControlledClock(["--program", program])
            defer { clock.removeFiles() }
            let subscriber = try await clock.connect()
            try subscriber.send(#"{"command": "subscribe"}"#)
            _ = try subscriber.state { _ in true }
            let remote = try await clock.connect()
            if program != "clock" {
                #expect(try remote.request(#"{"command": "start"}"#) == Self.ok)
                #expect(try remote.request(#"{"command": "stop"}"#) == Self.ok)
                _ = try subscriber.state { $0["state"] as? String == "paused" }
                #expect(await eventually {
                    ((try? jsonLines(clock.frames)) ?? []).contains { $0.object["state"] as? String == "paused" }
                }, "the pause reaches the frames file")
            }
            let pausedFrom = try Self.timePanelInstants(clock.frames).count
            // 6 s with the subscriber listening, then 3 s of commands that change nothing: START
            // in clock mode, a short MODE while paused.
            let quietUntil = ContinuousClock.now.advanced(by: .seconds(6))
            while ContinuousClock.now < quietUntil {
                _ = try? subscriber.line(deadline: ContinuousClock.now.duration(to: quietUntil))
            }
            let end = ContinuousClock.now.advanced(by: .seconds(3))
            while ContinuousClock.now < end {
                #expect(try remote.request(press) == Self.ok)
            }
            #expect(try await clock.stop() == "exit 0", "\(clock.log)")
            let times = try Self.timePanelInstants(clock.frames)
            if program == "clock" {
                // After the first picture, one commit per colon change, every 0.5 s, and none
                // between: a busy machine may commit a change late, never an extra one. Each
                // later commit needs its own boundary after the first picture, and a span of
                // s seconds holds at most ceil(s / 0.5) of them.
                let span = (times.last ?? 0) - (times.first ?? 0)
                #expect(times.count >= 14 && times.count <= Int((span / 0.5).rounded(.up)) + 2, "time panel commits: \(times)")
            } else {
                #expect(times.count == pausedFrom, "no commit while paused: \(times)")
            }
        }
    }

    @Test func versionSaysTheProtocolAndTheClocksVersion() async throws {
        let printed = try await CLIRun.run(["--version"])
        #expect(printed.status == 0)
        let version = String(printed.stdout.dropLast())
        #expect(!version.isEmpty && !version.contains("\n"))
        let clock = try ControlledClock()
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        let reply = try remote.request(#"{"command": "version"}"#)
        #expect(reply == #"{"ok": true, "protocol": 1, "clock": "\#(version)"}"#)
        let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        #expect(object?["protocol"] as? Int == 1 && object?["clock"] as? String == version)
        #expect(try remote.request(#"{"command": "version", "x": 1}"#) == #"{"ok": false, "error": "unknown member \"x\" for \"version\""}"#)
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }

    @Test func theSocketIsPrivateToItsGroupAndAStaleOneIsReplaced() async throws {
        let clock = try ControlledClock()
        defer { clock.removeFiles() }
        _ = try await clock.connect()
        let attributes = try FileManager.default.attributesOfItem(atPath: clock.socket)
        #expect((attributes[.posixPermissions] as? Int) == 0o660)
        #expect(try await clock.stop() == "exit 0")
        // A socket file nobody listens on (a clock killed by SIGKILL leaves one) is replaced.
        let stale = try ControlledClock()
        defer { stale.removeFiles() }
        _ = try await stale.connect()
        kill(stale.pid, SIGKILL)
        _ = try await SignalTests.wait(stale.pid)
        #expect(FileManager.default.fileExists(atPath: stale.socket))
        let again = try SignalTests.spawn(["run", "--simulate", "--control", stale.socket], blocking: [], stderr: stale.stderr)
        let connection = try await ControlConnection(path: stale.socket)
        #expect(try connection.request(#"{"command": "start"}"#) == Self.ok)
        // A live one is not taken over: one line, exit 73.
        let second = try await CLIRun.run(["run", "--simulate", "--control", stale.socket])
        #expect(second.status == 73)
        #expect(second.stderr == "roundclock: control socket: \(stale.socket): bind failed: another process listens on it\n")
        kill(again, SIGTERM)
        let ended = try await SignalTests.wait(again)
        #expect(SignalTests.describe(ended) == "exit 0")
    }

    @Test func aSocketThatCannotBeSetUpIsOneLineAndExit73() async throws {
        let long = "/tmp/" + String(repeating: "x", count: 120)
        let tooLong = try await CLIRun.run(["run", "--simulate", "--control", long])
        #expect(tooLong.status == 73)
        #expect(tooLong.stderr == "roundclock: control socket: \(long): socket failed: a socket path is 1 to 107 bytes\n")
        let file = temporaryFile("not-a-socket")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "keep me".write(toFile: file, atomically: false, encoding: .utf8)
        let inTheWay = try await CLIRun.run(["run", "--simulate", "--control", file])
        #expect(inTheWay.status == 73)
        #expect(inTheWay.stderr == "roundclock: control socket: \(file): bind failed: a file that is not a socket is in the way\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me", "never removed")
    }

    /// 1,000+ generated malformed lines (seed printed; replay with MALFORMED_SEED), a
    /// subscriber that never reads, one that hangs up, 100 connections at once: every bad line
    /// gets one error line, the clock keeps counting every second on time, and it still obeys.
    @Test func malformedLinesAndCrowdsNeverDisturbTheClock() async throws {
        let seed = ProcessInfo.processInfo.environment["MALFORMED_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("ControlSocketCLITests.malformedLinesAndCrowdsNeverDisturbTheClock seed \(seed) (replay: MALFORMED_SEED=\(seed))")
        let clock = try ControlledClock(["--program", "countdown:5:00"])
        defer { clock.removeFiles() }
        let remote = try await clock.connect()
        let silent = try await clock.connect()
        try silent.send(#"{"command": "subscribe"}"#)
        do {
            let gone = try await clock.connect()
            try gone.send(#"{"command": "subscribe"}"#)
        }
        #expect(try remote.request(#"{"command": "start"}"#) == Self.ok)
        let started = ContinuousClock.now
        var corpus = MalformedRequests(seed: seed)
        var sent = 0
        while sent < 1000 || started.duration(to: .now) < .seconds(6) {
            let line = corpus.next()
            try remote.send(line)
            let reply = try #require(try remote.line())
            let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
            #expect(object?["ok"] as? Bool == false && (object?["error"] as? String)?.isEmpty == false,
                    "line \(sent) (seed \(seed)): \(String(decoding: line.prefix(200), as: UTF8.self)) -> \(reply)")
            sent += 1
        }
        // 100 connections at once: the first ones up to the limit are served, the rest told why.
        var crowd: [ControlConnection] = []
        for _ in 0..<100 { crowd.append(try await clock.connect()) }
        var served = 0, refused = 0
        for connection in crowd {
            try? connection.send(#"{"command": "mode"}"#)
            switch try connection.line() {
            case Self.ok: served += 1
            case #"{"ok": false, "error": "too many clients (at most 32)"}"#: refused += 1
            case let other: Issue.record("unexpected reply \(other ?? "<closed>")")
            }
        }
        #expect(served >= 1 && served <= 30 && served + refused == 100, "served \(served), refused \(refused)")
        crowd.removeAll()
        // Once they are gone, a new client is served again (their hang-ups are seen soon).
        var answered = false
        for _ in 0..<200 where !answered {
            let late = try await clock.connect()
            answered = try late.request(#"{"command": "mode"}"#) == Self.ok
        }
        #expect(answered)
        #expect(try remote.request(#"{"command": "stop"}"#) == Self.ok)
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
        #expect(clock.log.contains("control socket: 32 clients connected; refusing more"), "\(clock.log)")

        // Every change showed the right second for its instant (file order is time order). (A machine stalled
        // for more than a second by other load may skip a second, as any clock would; the
        // text then still names the second it was shown in.)
        let time = try jsonLines(clock.frames).filter { $0.object["panel"] as? String == "time" && $0.object["state"] as? String == "running" }
        let texts = time.compactMap { $0.object["text"] as? String }
        let t = time.compactMap { $0.object["t"] as? Double }
        #expect(texts.count >= 5 && t.count == texts.count, "\(texts)")
        // From the first running frame on: " 5:00", or " 4:59" when the ready picture
        // already showed 5:00 before the start.
        let first = texts.first == " 5:00" ? 300 : 299
        // Each change's instant less its second, against the earliest of them: the spread of
        // the display's timing while the socket was flooded.
        let offsets = t.indices.map { t[$0] - t[0] - Double($0) }
        let earliest = offsets.min() ?? 0
        let expected = t.map { instant in
            let second = Int((instant - t[0] - earliest + 0.001).rounded(.down))
            return String(format: "%2d:%02d", (first - second) / 60, (first - second) % 60)
        }
        #expect(texts == expected, "texts \(texts) at \(t)")
        let lateness = offsets.map { $0 - earliest }.sorted()
        print("control flood: \(sent) malformed lines; time panel lateness (against the earliest change): "
              + "p50 \(lateness[lateness.count / 2] * 1000) ms, max \((lateness.last ?? 0) * 1000) ms over \(lateness.count) seconds")
    }
}
