import Foundation
import Testing

/// Errors a newcomer meets first: each says what was wrong and how to write it, on one line,
/// with exit 64 (usage) or 78 (a config or board file).
@Suite struct NewcomerErrorTests {
    func oneError(_ arguments: [String], exits status: Int32, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let run = try await CLIRun.run(arguments)
        let lines = run.stderr.split(separator: "\n")
        #expect(run.status == status && lines.count == 1, "\(arguments): exit \(run.status): \(run.stderr)", sourceLocation: sourceLocation)
        return run.stderr
    }

    @Test func aMistypedSubcommandIsNamedWithTheNearestOne() async throws {
        #expect(try await oneError(["simulte", "--program", "tabata"], exits: 64)
                == "roundclock: error: unknown subcommand 'simulte'; did you mean 'simulate'? (see 'roundclock --help')\n")
        #expect(try await oneError(["chek-config"], exits: 64).contains("did you mean 'check-config'?"))
        let far = try await oneError(["start"], exits: 64)
        #expect(far.contains("unknown subcommand 'start'; the subcommands are simulate, run, "), "\(far)")
        let bench = try await CLIRun.runBench(["latness"])
        #expect(bench.status == 64 && bench.stderr.contains("did you mean 'lateness'?"), "\(bench.stderr)")
    }

    @Test func aBoardAddressIsExplainedInHex() async throws {
        let board = temporaryFile("board.toml"), config = temporaryFile("config.toml")
        defer { unlink(board); unlink(config) }
        try "board = \"\(board)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        for (written, message) in [("70", "panels[1].address: 70 (0x46) is out of range; allowed are 0x70 to 0x77, written in hex"),
                                   ("\"0x70\"", "panels[1].address: expected an address from 0x70 to 0x77, written in hex without quotes")] {
            try "name = \"b\"\n[i2c]\nbus = 1\n[[panels]]\nrole = \"time\"\nkind = \"seg7x4\"\naddress = \(written)\n"
                .write(toFile: board, atomically: true, encoding: .utf8)
            let error = try await oneError(["check-config", config], exits: 78)
            #expect(error.contains(message), "address = \(written): \(error)")
        }
    }

    @Test func secondsPastFiftyNineAreExplained() async throws {
        let error = try await oneError(["programs", "10 x 0:60/0:15"], exits: 64)
        #expect(error.contains("expected a work time M:SS, e.g. 3:00; seconds run 00–59, so 0:60 is written 1:00"), "\(error)")
        let rest = try await oneError(["programs", "3 x 1:00:00/1:75:00"], exits: 64)
        #expect(rest.contains("minutes run 00–59, so 1:75:00 is written 2:15:00"), "\(rest)")
    }

    @Test func aSoundRateWithoutASoundFileIsRefused() async throws {
        let error = try await oneError(["simulate", "--virtual", "--no-tty", "--program", "countdown:0:02", "--sound-rate", "8000"], exits: 64)
        #expect(error.contains("--sound-rate needs --sound-file"), "\(error)")
    }

    /// README.md: Ctrl-C stops the real-time session that `scripts/simulate` runs.
    @Test func ctrlCStopsARealTimeSimulation() async throws {
        let process = Process()
        process.executableURL = CLIRun.binary
        process.arguments = ["simulate", "--no-tty", "--program", "boxing"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupted as soon as it runs (a generous deadline: both cores may be busy).
        process.interrupt()
        let ended = try await onOwnThread { () -> Bool in
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            return !process.isRunning
        }
        if !ended { process.terminate() }
        #expect(ended, "roundclock simulate still runs 60 s after SIGINT")
    }
}
