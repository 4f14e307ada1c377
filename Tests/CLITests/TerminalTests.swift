import Foundation
import Testing

/// The live terminal view of `simulate`, on a pseudo-terminal (util-linux `script`).
@Suite struct TerminalTests {
    /// Runs `roundclock ARGS` with stdout on a pty, plain (TERM=dumb) art.
    func onTerminal(_ arguments: [String]) async throws -> CLIRun {
        let command = ([CLIRun.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try await CLIRun.run(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"], environment: ["TERM": "dumb"])
    }

    @Test func aPausedTimePanelBlinksOnScreen() async throws {
        // Paused at 0.5 s (4 s of blinking: margin for a busy machine): the chip is set to blink at 1 Hz and nothing more is written;
        // the view must still show it going dark and lit again, as the LEDs would.
        let run = try await onTerminal(["simulate", "--program", "countdown:0:05", "--events", "0.5:stop", "--until", "4.6"])
        #expect(run.status == 0, "\(run.stdout)")
        let labels = run.stdout.split(whereSeparator: \.isNewline).compactMap { line -> Substring? in
            line.range(of: "[time] ").map { line[$0.lowerBound...] }
        }
        #expect(labels.first?.hasPrefix("[time] brightness 15/15, blink off") == true)
        let dark = labels.filter { $0.contains("blink 1 Hz (off phase)") }.count
        let lit = labels.filter { $0.hasSuffix("blink 1 Hz") || $0.contains("blink 1 Hz\r") }.count
        #expect(dark >= 2 && lit >= 2, "4 s paused at 1 Hz: both phases drawn more than once (dark \(dark), lit \(lit))")
    }

    @Test func virtualTimeDrawsEachFrameOnceWithoutAnimating() async throws {
        let run = try await onTerminal(["simulate", "--program", "countdown:0:03", "--virtual", "--events", "0.5:stop", "--until", "10"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(!run.stdout.contains("(off phase)"), "in virtual time the blink is a label, not an animation")
        #expect(run.stdout.contains("[time] brightness 15/15, blink 1 Hz"))
    }
}
