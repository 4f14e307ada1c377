import Foundation
import Testing

/// `roundclock-bench`: the virtual-time drift check is exact and asserted; the real-time
/// benchmarks are run for their output shape (never timed: numbers are noise-dependent).
@Suite struct BenchCLITests {
    @Test func virtualDriftOfABoxingSessionIsZero() async throws {
        let run = try await CLIRun.runBench(["drift", "--virtual"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("2830 of 2830 changes committed"))
        #expect(run.stdout.contains("lateness first 0 µs, last 0 µs, worst 0 µs: no drift"))
    }

    @Test func latenessPrintsOursAndBothBaselinesWithRatios() async throws {
        let run = try await CLIRun.runBench(["lateness", "--duration", "3"])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = run.stdout.split(separator: "\n").map(String.init)
        let ours = try #require(rows.first { $0.hasPrefix("ours (RenderLoop)") })
        #expect(ours.contains("true value"), "our loop shows the true value at the end: \(ours)")
        #expect(rows.contains { $0.hasPrefix("A: 60 Hz refresh") })
        #expect(rows.contains { $0.hasPrefix("B: 1 s tick counter") })
        #expect(rows.contains { $0.hasPrefix("ratio A: 60 Hz refresh / ours (RenderLoop): p50 ") })
        // Three changes in 3 s; our loop wakes about once per change, the 60 Hz loop ~60 times a second.
        let fields = ours.split(separator: " ", omittingEmptySubsequences: true)
        let changes = try #require(fields.first { Int($0) != nil }.flatMap { Int($0) })
        #expect(changes >= 2 && changes <= 3, "changes measured: \(ours)")
    }

    @Test func buttonLatencyReportsEveryPress() async throws {
        let run = try await CLIRun.runBench(["buttons", "--presses", "12"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("buttons: 12 presses posted into the inbox, event instant -> display commit: p50 "))
    }

    @Test func controlSocketLatencyIsMeasuredBothWays() async throws {
        let run = try await CLIRun.runBench(["control", "--commands", "6"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("control socket: 6 commands (STOP/START), command sent -> display commit: p50 "), "\(run.stdout)")
        #expect(run.stdout.contains("display commit -> state line read by a subscriber: p50 "), "\(run.stdout)")
    }

    @Test func aMissingGPIOSimChipIsNamedAndExits69() async throws {
        let run = try await CLIRun.runBench(["buttons", "--presses", "2", "--gpio-sim", "/sys/devices/platform/gpio-sim.9/gpiochip99"])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("/sys/devices/platform/gpio-sim.9/gpiochip99/sim_gpio17/pull: open failed"), "\(run.stderr)")
    }

    @Test(arguments: [
        (["lateness", "--duration", "nan"], "--duration must be between 1 s and 86400 s, got nan"),
        (["cost", "--duration", "0"], "--duration must be between 0.1 s and 86400 s, got 0"),
        (["drift", "--duration", "inf"], "--duration must be between 1 s and 86400 s, got inf"),
        (["buttons", "--presses", "0"], "--presses must be between 1 and 100000, got 0"),
        (["control", "--commands", "0"], "--commands must be between 1 and 100000, got 0"),
        (["timers", "--period", "0"], "--period must be between 1 ms and 60000 ms, got 0"),
        (["buttons", "--gpio-sim", "/tmp", "--start-line", "5", "--stop-line", "5"], "--start-line and --stop-line must differ"),
    ])
    func badArgumentsAreRejectedByName(arguments: [String], message: String) async throws {
        let run = try await CLIRun.runBench(arguments)
        #expect(run.status == 64, "usage error, not a crash: \(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    /// `drift --program`: the program scripts/callgrind-per-second counts; one that never ends is refused.
    @Test func virtualDriftOfAnotherProgramAndAnOpenEndedOneRefused() async throws {
        let run = try await CLIRun.runBench(["drift", "--virtual", "--program", "countdown:1:00"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("countdown:1:00, 61 s simulated"), "\(run.stdout)")
        #expect(run.stdout.contains("60 of 60 changes committed"), "\(run.stdout)")
        let open = try await CLIRun.runBench(["drift", "--virtual", "--program", "stopwatch"])
        #expect(open.status == 64)
        #expect(open.stderr.contains("--program must end by itself, stopwatch does not"), "\(open.stderr)")
    }

    /// The binary that ships to the Pi carries no benchmark code; `roundclock-bench` does.
    @Test func roundclockDoesNotLinkTheBenchmarks() throws {
        // The mangled module name prefix of every RoundClockBench symbol (`$s15RoundClockBench...`).
        let marker = Data("15RoundClockBench".utf8)
        #expect(try Data(contentsOf: CLIRun.binary).range(of: marker) == nil)
        #expect(try Data(contentsOf: CLIRun.benchBinary).range(of: marker) != nil)
    }
}
