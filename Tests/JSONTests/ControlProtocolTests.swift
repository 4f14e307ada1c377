import ControlProtocol
import JSON
import Testing

/// The wire contract (docs/control-protocol.md), line by line.
@Suite struct ControlProtocolTests {
    @Test func readsEveryRequestOfTheContract() throws {
        let cases: [(String, ControlRequest)] = [
            (#"{"command": "start"}"#, .command(.start)), (#"{"command": "stop"}"#, .command(.stop)),
            (#"{"command": "reset"}"#, .command(.reset)), (#"{"command": "mode"}"#, .command(.mode)),
            (#"{"command": "hold-stop"}"#, .command(.holdStop)), (#"{"command": "skip"}"#, .command(.skip)),
            (#"{"command": "program", "program": "tabata"}"#, .command(.program("tabata"))),
            (#"{"program": "10 x 0:45/0:15", "command": "program"}"#, .command(.program("10 x 0:45/0:15"))),
            (#"{"command": "adjust", "seconds": 10}"#, .command(.adjust(seconds: 10))),
            (#"{"seconds": -600, "command": "adjust"}"#, .command(.adjust(seconds: -600))),
            (#"{"command": "back"}"#, .command(.back)),
            (#"{"command": "subscribe"}"#, .subscribe),
            (#"{"command": "version"}"#, .version),
            ("\t{\"command\":\"start\"}\r", .command(.start)),
        ]
        for (line, request) in cases {
            #expect(try ControlRequest.parse(line) == request)
            #expect(try ControlRequest.parse(request.line) == request)
        }
        for edit in [ProgramEdit.check(toml: "[programs.a]\nbase = \"tabata\""), .save(toml: "x"), .delete(name: "a"), .list] {
            #expect(try ControlRequest.parse(ControlRequest.edit(edit).line) == .edit(edit))
        }
        for edit in [SettingsEdit.show, .reset, .set([JSONMember("brightness.day", .int(3)), JSONMember("start_at", .null)])] {
            #expect(try ControlRequest.parse(ControlRequest.settings(edit).line) == .settings(edit))
        }
        #expect(ControlRequest.settings(.set([JSONMember("program", .string("emom"))])).line
                == #"{"command": "settings-set", "values": {"program": "emom"}}"#)
        #expect(ControlRequest.edit(.delete(name: "a")).line == #"{"command": "program-delete", "program": "a"}"#)
        #expect(ControlRequest.command(.program("tabata")).line == #"{"command": "program", "program": "tabata"}"#)
        #expect(ControlRequest.command(.adjust(seconds: -10)).line == #"{"command": "adjust", "seconds": -10}"#)
    }

    /// An `adjust` needs whole seconds, not 0, at most 10 minutes either way; the refusal
    /// names the member and the value received (cut to 40 characters).
    @Test func refusesAnAdjustWithoutUsableSeconds() {
        let rule = "it must be a whole number of seconds from -600 to 600, not 0"
        let long = String(repeating: "9", count: 50)
        let cases: [(String, String)] = [
            (#"{"command": "adjust"}"#, #""adjust" needs a "seconds": a whole number of seconds from -600 to 600, not 0"#),
            (#"{"command": "adjust", "seconds": 0}"#, #""seconds" is 0; "# + rule),
            (#"{"command": "adjust", "seconds": 700}"#, #""seconds" is 700; "# + rule),
            (#"{"command": "adjust", "seconds": 601}"#, #""seconds" is 601; "# + rule),
            (#"{"command": "adjust", "seconds": -601}"#, #""seconds" is -601; "# + rule),
            (#"{"command": "adjust", "seconds": 1.5}"#, #""seconds" is 1.5; "# + rule),
            (#"{"command": "adjust", "seconds": 1e1}"#, #""seconds" is 1e1; "# + rule),
            (#"{"command": "adjust", "seconds": "10"}"#, #""seconds" is "10"; "# + rule),
            (#"{"command": "adjust", "seconds": null}"#, #""seconds" is null; "# + rule),
            (#"{"command": "adjust", "seconds": 99999999999999999999999}"#, #""seconds" is 99999999999999999999999; "# + rule),
            (#"{"command": "adjust", "seconds": \#(long)}"#, #""seconds" is \#(long.prefix(39))…; "# + rule),
            (#"{"command": "adjust", "seconds": 10, "program": "x"}"#, #"unknown member "program" for "adjust""#),
            (#"{"command": "back", "seconds": 10}"#, #"unknown member "seconds" for "back""#),
        ]
        for (line, why) in cases {
            #expect(throws: ControlError(why)) { try ControlRequest.parse(line) }
        }
    }

    @Test func refusesWithOneLineSayingWhy() {
        let cases: [(String, String)] = [
            (#"{"command": "jump"}"#,
             #"unknown command "jump" (known: start, stop, reset, mode, hold-stop, skip, adjust, back, program, show-pin, subscribe, version, adopt, program-check, program-save, program-delete, programs, settings, settings-set, settings-reset)"#),
            (#"{"command": "version", "x": 1}"#, #"unknown member "x" for "version""#),
            (#"{"command": "Version"}"#,
             #"unknown command "Version" (known: start, stop, reset, mode, hold-stop, skip, adjust, back, program, show-pin, subscribe, version, adopt, program-check, program-save, program-delete, programs, settings, settings-set, settings-reset)"#),
            (#"{"command": 1}"#, #""command" must be a string"#),
            (#"{"cmd": "start"}"#, #"missing "command""#),
            (#"["start"]"#, #"a request is a JSON object, like {"command": "start"}"#),
            (#"{"command": "start", "program": "x"}"#, #"unknown member "program" for "start""#),
            (#"{"command": "program"}"#, #""program" needs a "program": a name or a DSL line"#),
            (#"{"command": "program", "program": ""}"#, #""program" must be a non-empty string"#),
            (#"{"command": "program-save"}"#, #""program-save" needs a "toml": a [programs.NAME] snippet"#),
            (#"{"command": "program-check", "toml": 3}"#, #""toml" must be a non-empty string"#),
            (#"{"command": "program-check", "toml": "x", "program": "y"}"#, #"unknown member "program" for "program-check""#),
            (#"{"command": "program-delete"}"#, #""program-delete" needs a "program": a saved program's name"#),
            (#"{"command": "programs", "toml": "x"}"#, #"unknown member "toml" for "programs""#),
            (#"{"command": "start""#, #"not JSON: at byte 19: expected ',' or '}' in an object, found end of line"#),
        ]
        for (line, why) in cases {
            #expect(throws: ControlError(why)) { try ControlRequest.parse(line) }
        }
    }

    @Test func repliesAndStateLines() {
        #expect(ControlReply.ok.line == #"{"ok": true}"#)
        #expect(ControlReply.failed("bad \"x\"").line == #"{"ok": false, "error": "bad \"x\""}"#)
        #expect(ControlReply.parse(#"{"ok": false, "error": "no"}"#) == .failed("no"))
        #expect(ControlReply.parse(#"{"ok": true}"#) == .ok)
        let state = ControlState(state: "running", phase: "work", round: 1, rounds: 12, program: "boxing", brightness: 15,
                                 panels: [.init(role: "time", text: " 2:58"), .init(role: "round", text: " 1.12"), .init(role: "phase", text: "WORK")])
        #expect(state.line == #"{"state": "running", "phase": "work", "round": 1, "rounds": 12, "program": "boxing", "brightness": 15, "panels": {"time": " 2:58", "round": " 1.12", "phase": "WORK"}}"#)
        #expect(ControlState.parse(state.line) == state)
    }

    /// `persistence` on a state line: written after the panels and the session, read back;
    /// a line without it (an older clock, or one keeping no session) reads as before, a
    /// malformed one is no state line, and members it does not know are ignored.
    @Test func persistenceOnStateLines() {
        let panels: [ControlState.Panel] = [.init(role: "time", text: " 2:58")]
        var state = ControlState(state: "running", phase: "work", round: 1, rounds: 12, program: "boxing", brightness: 15, panels: panels,
                                 persistence: .init(on: false, reason: "open /s/.state.tmp: Read-only file system (errno 30)"))
        #expect(state.line == #"{"state": "running", "phase": "work", "round": 1, "rounds": 12, "program": "boxing", "brightness": 15, "#
                + #""panels": {"time": " 2:58"}, "persistence": {"on": false, "reason": "open /s/.state.tmp: Read-only file system (errno 30)"}}"#)
        #expect(ControlState.parse(state.line) == state)
        state.persistence = .init(on: true)
        #expect(state.line.hasSuffix(#""persistence": {"on": true}}"#))
        #expect(ControlState.parse(state.line) == state)
        let base = #"{"state": "ready", "phase": "prep", "round": 0, "rounds": 12, "program": "boxing", "brightness": 15, "panels": {}"#
        #expect(ControlState.parse(base + "}")?.persistence == nil)
        #expect(ControlState.parse(base + #", "persistence": {"on": true, "since": 5}}"#)?.persistence == .init(on: true))
        for bad in [#"{"on": "yes"}"#, #"{"reason": "x"}"#, #"{"on": false, "reason": 30}"#, "true"] {
            #expect(ControlState.parse(base + #", "persistence": "# + bad + "}") == nil, "\(bad)")
        }
    }

    /// The `version` reply: the protocol's number and the clock's version; a client reads it
    /// and ignores members it does not know; an `ok` reader takes it as `ok`.
    @Test func theVersionReply() {
        #expect(ControlVersion.current == 1)
        let reply = ControlVersion(clock: "0.1.0 (development build)")
        #expect(reply.line == #"{"ok": true, "protocol": 1, "clock": "0.1.0 (development build)"}"#)
        #expect(ControlVersion.parse(reply.line) == reply)
        #expect(ControlReply.parse(reply.line) == .ok)
        #expect(ControlVersion.parse(#"{"ok": true, "protocol": 2, "clock": "9.0", "features": ["x"]}"#)
                == ControlVersion(protocolVersion: 2, clock: "9.0"))
        for notOne in [#"{"ok": true}"#, #"{"ok": false, "error": "unknown command "version""}"#, #"{"ok": true, "protocol": 1}"#,
                       #"{"ok": true, "protocol": "1", "clock": "x"}"#, #"{"ok": true, "protocol": 1.0, "clock": "x"}"#,
                       #"{"ok": true, "protocol": 0, "clock": "x"}"#, #"{"ok": false, "protocol": 1, "clock": "x"}"#, "1"] {
            #expect(ControlVersion.parse(notOne) == nil, "\(notOne)")
        }
        #expect(ControlRequest.version.line == #"{"command": "version"}"#)
        #expect(ControlRequest.words == ["start", "stop", "reset", "mode", "hold-stop", "skip", "adjust", "back", "program", "show-pin", "subscribe", "version", "adopt",
                                     "program-check", "program-save", "program-delete", "programs", "settings", "settings-set", "settings-reset"])
    }
}
