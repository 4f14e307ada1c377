import Foundation
import Testing
import TestSupport

/// `adjust` and `back` through a real `roundclock run --control`: refused in one line while
/// ready, carried out while running or paused, logged, and kept over a restart.
@Suite(.serialized) struct LiveEditCLITests {
    static let ok = #"{"ok": true}"#

    /// The time panel's `M:SS` as seconds.
    static func seconds(_ state: [String: Any]) -> Int? {
        guard let text = ControlSocketCLITests.text(state, "time")?.trimmingCharacters(in: .whitespaces) else { return nil }
        let parts = text.split(separator: ":").compactMap { Int($0) }
        return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
    }

    @Test func anAdjustedPausedRoundIsLoggedAndComesBackAfterARestart() async throws {
        let stateDir = temporaryFile("live-edit-state")
        try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: stateDir) }
        let clock = try ControlledClock(["--state-dir", stateDir])
        defer { clock.removeFiles() }
        let subscriber = try await clock.connect()
        try subscriber.send(#"{"command": "subscribe"}"#)
        _ = try subscriber.state { $0["state"] as? String == "ready" }
        let remote = try await clock.connect()
        #expect(try remote.request(#"{"command": "adjust", "seconds": 10}"#)
                == #"{"ok": false, "error": "adjust: only while running or paused (the clock is ready)"}"#)
        #expect(try remote.request(#"{"command": "back"}"#)
                == #"{"ok": false, "error": "back: only while running or paused (the clock is ready)"}"#)
        #expect(try remote.request(#"{"command": "adjust", "seconds": "10"}"#)
                == #"{"ok": false, "error": "\"seconds\" is \"10\"; it must be a whole number of seconds from -600 to 600, not 0"}"#)
        #expect(try remote.request(#"{"command": "start"}"#) == Self.ok)
        _ = try subscriber.state { $0["state"] as? String == "running" }
        #expect(try remote.request(#"{"command": "skip"}"#) == Self.ok)
        _ = try subscriber.state { $0["phase"] as? String == "work" }
        #expect(try remote.request(#"{"command": "stop"}"#) == Self.ok)
        let paused = try subscriber.state { $0["state"] as? String == "paused" }
        let frozen = try #require(Self.seconds(paused))
        #expect(try remote.request(#"{"command": "adjust", "seconds": -60}"#) == Self.ok)
        let adjusted = try subscriber.state { Self.seconds($0) == frozen - 60 }
        #expect(adjusted["state"] as? String == "paused" && adjusted["round"] as? Int == 1)
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
        #expect(clock.log.contains("adjust -60 s: paused, round 1 of 12, work"), "\(clock.log)")

        // The same state directory after a restart: the adjusted, paused round.
        let again = try ControlledClock(["--state-dir", stateDir])
        defer { again.removeFiles() }
        let watcher = try await again.connect()
        try watcher.send(#"{"command": "subscribe"}"#)
        let restored = try watcher.state { _ in true }
        #expect(restored["state"] as? String == "paused" && Self.seconds(restored) == frozen - 60, "\(restored)")
        // BACK: the round starts over at 3:00, still paused.
        let remoteAgain = try await again.connect()
        #expect(try remoteAgain.request(#"{"command": "back"}"#) == Self.ok)
        let backed = try watcher.state { Self.seconds($0) == 180 }
        #expect(backed["state"] as? String == "paused" && backed["phase"] as? String == "work")
        #expect(try await again.stop() == "exit 0", "\(again.log)")
        #expect(again.log.contains("back: paused, round 1 of 12, work"), "\(again.log)")
    }
}
