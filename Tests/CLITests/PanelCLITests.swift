import Foundation
import Testing

/// Custom-wired and 6-digit panels through the built binary: `simulate --virtual` with
/// boards/bigdigits.toml (frames file: exact instants, texts and chip RAM), `render` of
/// text starting with `-`, and board files with bad layouts.
@Suite(.serialized) struct PanelCLITests {
    static let bigDigits = CheckConfigTests.repository.appendingPathComponent("boards/bigdigits.toml").path

    /// (t, text) of one panel's lines in a frames file.
    static func shown(_ frames: String, panel: String) throws -> [(t: Double, text: String, ram: String)] {
        try jsonLines(frames).compactMap { line in
            guard line.object["panel"] as? String == panel, let t = line.object["t"] as? Double,
                  let text = line.object["text"] as? String, let ram = line.object["ram"] as? String else { return nil }
            return (t, text, ram)
        }
    }

    static func contains(_ shown: [(t: Double, text: String, ram: String)], _ t: Double, _ text: String) -> Bool {
        shown.contains { abs($0.t - t) < 0.0005 && $0.text == text }
    }

    @Test func aTwoHourCountdownOnSixDigits() async throws {
        let frames = temporaryFile("six.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["simulate", "--board", Self.bigDigits, "--program", "countdown:120:00", "--virtual", "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        let time = try Self.shown(frames, panel: "time")
        #expect(time.count == 7201, "one change per second, 2:00:00 to 0:00")
        #expect(time.first.map { "\($0.t) \($0.text) \($0.ram)" } == "0.0  2:00:00 00005b003f003f003f003f000f000000")
        for (t, text) in [(1.0, " 1:59:59"), (2.0, " 1:59:58"), (3599.0, " 1:00:01"), (3600.0, " 1:00:00"), (3601.0, "  59:59"),
                          (6600.0, "  10:00"), (6601.0, "   9:59"), (7199.0, "   0:01"), (7200.0, "   0:00")] {
            #expect(Self.contains(time, t, text), "\(text) at \(t) s")
        }
        #expect(time.first { abs($0.t - 1) < 0.0005 }?.ram == "000006006d006f006d006f000f000000")
        #expect(time.allSatisfy { !$0.text.contains("?") }, "every frame decodes through the custom layout")
    }

    @Test func tenthsWhenTheCadenceIsLive() async throws {
        let frames = temporaryFile("tenths.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["simulate", "--board", Self.bigDigits, "--program", "countdown:1:05", "--cadence", "live",
                                        "--virtual", "--until", "1", "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        let time = try Self.shown(frames, panel: "time")
        #expect(time.count == 11, "1:05.0 then each tenth to 1:04.0")
        for (index, text) in [" 1:05.0 ", " 1:04.9 ", " 1:04.8 ", " 1:04.7 ", " 1:04.6 ", " 1:04.5 ", " 1:04.4 ", " 1:04.3 ",
                              " 1:04.2 ", " 1:04.1 ", " 1:04.0 "].enumerated() {
            #expect(Self.contains(time, Double(index) / 10, text), "\(text) at \(Double(index) / 10) s")
        }
        // The point of digit 4 (byte 6 bit 7), the first colon only (byte 12 = 0x03), digit 6 dark.
        #expect(time.first.map { $0.ram } == "000006003f00ed003f00000003000000")
    }

    @Test func theTwoDigitRoundPanelShowsTheRound() async throws {
        let frames = temporaryFile("round.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["simulate", "--board", Self.bigDigits, "--program", "boxing", "--virtual", "--until", "250", "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        let round = try Self.shown(frames, panel: "round")
        #expect(round.map { $0.text } == ["--", " 1", " 2"], "prep, round 1, round 2 (after 3:00 work and 1:00 rest)")
        #expect(round.map { $0.t } == [0, 10, 250])
        #expect(round.map { $0.ram } == ["40004000000000000000000000000000", "00000600000000000000000000000000", "00005b00000000000000000000000000"])
    }

    @Test func theWallClockWithSeconds() async throws {
        let frames = temporaryFile("clock6.jsonl")
        defer { try? FileManager.default.removeItem(atPath: frames) }
        let run = try await CLIRun.run(["simulate", "--board", Self.bigDigits, "--program", "clock", "--virtual", "--wall-time", "18:59:58",
                                        "--until", "2", "--frames", frames, "--no-tty"])
        #expect(run.status == 0, "\(run.stderr)")
        let time = try Self.shown(frames, panel: "time")
        #expect(time.map { $0.t } == [0, 1, 2] && time.map { $0.text } == ["18:59:58", "18:59:59", "19:00:00"])
    }

    @Test func renderTakesTextStartingWithAMinus() async throws {
        // Adafruit's bytes for "-1:00" (Golden/adafruit-golden.txt, line 338) and, by the same
        // font, "-1:05" (5 = 0x6D at byte 8).
        for (text, ram) in [("-1:00", "4000060002003f003f00000000000000"), ("-1:05", "4000060002003f006d00000000000000")] {
            for arguments in [["render", "--display", "seg7x4", text, "--plain"], ["render", "--plain", "--display", "seg7x4", "--", text]] {
                let run = try await CLIRun.run(arguments)
                #expect(run.status == 0, "\(arguments): \(run.stderr)")
                #expect(run.stdout.split(separator: "\n").first.map(String.init) == ram, "\(arguments)")
            }
        }
        let golden = try String(contentsOfFile: CheckConfigTests.repository.appendingPathComponent("Tests/SegmentDisplayTests/Golden/adafruit-golden.txt").path, encoding: .utf8)
        #expect(golden.contains("seg7x4 4000060002003f003f00000000000000 \"-1:00\""))
        let plus = try await CLIRun.run(["render", "--display", "seg7x4", "+1:05", "--plain"])
        #expect(plus.stdout.hasPrefix("7000060002003f006d00000000000000\n"), "+ is segments E F G (0x70)")
        let typo = try await CLIRun.run(["render", "--display", "seg7x4", "--plian", "1"])
        #expect(typo.status == 64 && typo.stderr.contains("unknown option '--plian'; did you mean '--plain'?"), "\(typo.stderr)")
        let two = try await CLIRun.run(["render", "--display", "seg7x4", "1", "2"])
        #expect(two.status == 64 && two.stderr.contains("give one TEXT, got 2"))
    }

    @Test func renderOnABoardsCustomLayout() async throws {
        let run = try await CLIRun.run(["render", "--board", Self.bigDigits, "--display", "big6", "1:59:59", "--plain"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "000006006d006f006d006f000f000000")
        #expect(lines.dropFirst().first == "[big6] brightness 15/15, blink off")
        #expect(lines.count == 7, "status line and 5 lines of segment art")
        let sign = try await CLIRun.run(["render", "--board", Self.bigDigits, "--display", "big6", "-1:05", "--plain"])
        #expect(sign.stdout.hasPrefix("00000000400006003f006d000c000000\n"))
        let unknown = try await CLIRun.run(["render", "--board", Self.bigDigits, "--display", "big7", "1"])
        #expect(unknown.status == 64 && unknown.stderr.contains("seg7x4, bigseg7x4, seg14x4, matrix8x8, matrix16x8, big2, big6"))
    }

    @Test func theLampTestLightsEachCustomDigit() async throws {
        let run = try await CLIRun.run(["test-display", "--board", Self.bigDigits, "--simulate", "--step", "0"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let second = try #require(lines.firstIndex(of: "step 3/24: digit 2"))
        #expect(Array(lines[(second - 3)..<second]) == ["time 0000ff00000000000000000000000000 brightness 15",
                                                         "round 00007f00000000000000000000000000 brightness 15",
                                                         "phase 0000ffff000000000000000000000000 brightness 15"],
                "digit 2: COM1 with its point on big6, without on big2 (no dp wired)")
    }

    /// `run` exits 78 (EX_CONFIG: systemd does not restart it); a file named by an option of
    /// `simulate` or `render` is a usage error, 64 (docs/command-line.md).
    @Test func aBadLayoutIsOneLine() async throws {
        let board = temporaryFile("bad.toml")
        defer { try? FileManager.default.removeItem(atPath: board) }
        let text = try String(contentsOfFile: Self.bigDigits, encoding: .utf8)
            .replacingOccurrences(of: "{ com = 3, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g = 6, dp = 7 }", with: "{ com = 3, a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g = 6, dp = 6 }")
        try text.write(toFile: board, atomically: true, encoding: .utf8)
        let message = "\(board): line 29: layouts.big6.digits[4].dp: COM3 ROW6 (RAM byte 6 bit 6) is already used by digit 4 segment g; each RAM bit lights one thing"
        let run = try await CLIRun.run(["run", "--board", board])
        #expect(run.status == 78 && run.stderr == "roundclock: \(message)\n", "\(run.stderr)")
        for (command, arguments) in [("simulate", ["simulate", "--board", board, "--virtual", "--no-tty"]), ("render", ["render", "--board", board, "--display", "big6", "1"])] {
            let run = try await CLIRun.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.hasPrefix("roundclock: error: \(message)") && run.stderr.split(separator: "\n").count == 1, "\(command): \(run.stderr)")
        }
    }
}
