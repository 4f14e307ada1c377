import Testing

/// `roundclock bench`: only the virtual-time drift check runs here (milliseconds, exact);
/// the real-time benchmarks are exercised by `roundclock bench smoke` in CI, never timed.
@Suite struct BenchCLITests {
    @Test func virtualDriftOfABoxingSessionIsZero() throws {
        let run = try CLIRun.run(["bench", "drift", "--virtual"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("2830 of 2830 changes committed"))
        #expect(run.stdout.contains("lateness first 0 µs, last 0 µs, worst 0 µs: no drift"))
    }
}
