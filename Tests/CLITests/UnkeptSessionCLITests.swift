import Foundation
import Testing
import TestSupport

/// `run` with a state directory it cannot write (here its parent is a regular file: ENOTDIR,
/// which stops root as well as anyone): the clock runs and counts, says so once in the log
/// and in the state lines' `persistence`, and keeps the session again as soon as it can.
@Suite(.serialized) struct UnkeptSessionCLITests {
    static func persistence(_ state: [String: Any]) -> (on: Bool?, reason: String?) {
        let member = state["persistence"] as? [String: Any]
        return (member?["on"] as? Bool, member?["reason"] as? String)
    }

    @Test func aStateDirectoryThatCannotBeWrittenIsReportedAndRecovers() async throws {
        let parent = temporaryFile("in-the-way")
        FileManager.default.createFile(atPath: parent, contents: Data("a file".utf8))
        let dir = parent + "/state"
        let clock = try ControlledClock(["--program", "countdown:10:00", "--state-dir", dir])
        defer {
            clock.removeFiles()
            try? FileManager.default.removeItem(atPath: parent)
        }
        let subscriber = try await clock.connect()
        try subscriber.send(#"{"command": "subscribe"}"#)
        let first = try subscriber.state { _ in true }
        let off = Self.persistence(first)
        #expect(off.on == false && off.reason?.hasSuffix("Not a directory (errno 20)") == true, "\(first)")
        let remote = try await clock.connect()
        #expect(try remote.request(#"{"command": "start"}"#) == ControlSocketCLITests.ok)
        let running = try subscriber.state { $0["state"] as? String == "running" }
        let shown = ControlSocketCLITests.text(running, "time")
        _ = try subscriber.state { ControlSocketCLITests.text($0, "time") != shown }
        #expect(Self.persistence(running).on == false)

        // The directory can be made now: the next change is saved, the state line says so.
        unlink(parent)
        #expect(try remote.request(#"{"command": "stop"}"#) == ControlSocketCLITests.ok)
        let on = try subscriber.state { Self.persistence($0).on == true }
        #expect(on["state"] as? String == "paused" && Self.persistence(on).reason == nil, "\(on)")
        #expect(await eventually { (try? String(contentsOfFile: dir + "/state", encoding: .utf8))?.contains("state=paused\n") == true })
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")

        let lines = clock.log.split(separator: "\n")
        let errors = lines.filter { $0.hasPrefix("error: ") }
        #expect(errors.count == 1 && errors[0].hasPrefix("error: state: cannot save the session in \(dir): "), "\(clock.log)")
        #expect(lines.filter { $0 == "info: state: saving in \(dir) works again" }.count == 1, "\(clock.log)")
    }

    /// A directory that works: every state line says `"persistence": {"on": true}`.
    @Test func aWritableStateDirectoryIsOn() async throws {
        let dir = temporaryFile("kept-state")
        let clock = try ControlledClock(["--state-dir", dir])
        defer {
            clock.removeFiles()
            try? FileManager.default.removeItem(atPath: dir)
        }
        let subscriber = try await clock.connect()
        try subscriber.send(#"{"command": "subscribe"}"#)
        let first = try subscriber.state { _ in true }
        #expect(Self.persistence(first).on == true && Self.persistence(first).reason == nil, "\(first)")
        #expect(try await clock.stop() == "exit 0", "\(clock.log)")
    }
}
