import Foundation
import Testing
import TestSupport

/// The remote's PIN on a real `roundclock run --simulate`: `show-pin` shows it on the ready
/// panels; with `seconds` 0 it is only remembered, and holding STOP while pressing START
/// shows it, without starting a round.
@Suite(.serialized) struct PinPanelsCLITests {
    /// The frames file's panel texts after each frame, in order.
    static func texts(_ frames: String) -> [[String: String]] {
        var shown: [String: String] = [:], out: [[String: String]] = []
        for line in ((try? String(contentsOfFile: frames, encoding: .utf8)) ?? "").split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let panel = object["panel"] as? String, let text = object["text"] as? String else { continue }
            shown[panel] = text
            out.append(shown)
        }
        return out
    }

    /// The first panels (or, with `latest`, the newest) that match, waited for up to 240 s.
    static func waitFor(_ what: String, frames: String, latest: Bool = false, _ matches: ([String: String]) -> Bool) async throws -> [String: String]? {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .seconds(240))
        while clock.now < end {
            let all = texts(frames)
            if latest, let last = all.last, matches(last) { return last }
            if !latest, let found = all.first(where: matches) { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no frame with \(what) within 240 s: \(texts(frames).last ?? [:])")
        return nil
    }

    @Test func theGestureShowsARememberedPINWithoutStarting() async throws {
        // The gesture comes a minute in: long after `show-pin`, even on a starved machine.
        let clock = try ControlledClock(["--events", "60:stop:3,61:start"])
        defer { clock.removeFiles() }
        let gateway = try await clock.connect()
        #expect(try gateway.request(#"{"command": "show-pin", "pin": "482913", "seconds": 0}"#) == #"{"ok": true}"#)
        #expect(try gateway.request(#"{"command": "show-pin", "pin": "48", "seconds": 5}"#)
                == #"{"ok": false, "error": "\"show-pin\" needs a \"pin\": 4 to 12 digits 0-9, as a string"}"#)
        let shown = try await Self.waitFor("PIN1", frames: clock.frames) { $0["phase"] == "PIN1" }
        #expect(shown?["time"] == "4829")
        _ = try await Self.waitFor("PIN2", frames: clock.frames) { $0["phase"] == "PIN2" && $0["time"] == "13  " }
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
        let frames = (try? String(contentsOfFile: clock.frames, encoding: .utf8)) ?? ""
        #expect(!frames.contains("\"state\": \"running\""), "the gesture's START started nothing")
        #expect(Self.texts(clock.frames).prefix { $0["phase"] != "PIN1" }.allSatisfy { !($0["phase"] ?? "").hasPrefix("PIN") },
                "seconds 0: nothing shown before the gesture")
    }

    @Test func showPINShowsItOnTheReadyPanels() async throws {
        let clock = try ControlledClock()
        defer { clock.removeFiles() }
        let gateway = try await clock.connect()
        #expect(try gateway.request(#"{"command": "show-pin", "pin": "7351", "seconds": 30}"#) == #"{"ok": true}"#)
        let shown = try await Self.waitFor("PIN", frames: clock.frames) { $0["phase"] == "PIN " }
        #expect(shown?["time"] == "7351")
        #expect(try gateway.request(#"{"command": "mode"}"#) == #"{"ok": true}"#)
        let back = try await Self.waitFor("the program again", frames: clock.frames, latest: true) { $0["phase"] != "PIN " }
        #expect(back?["time"] != "7351", "\(back ?? [:])")
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }
}
