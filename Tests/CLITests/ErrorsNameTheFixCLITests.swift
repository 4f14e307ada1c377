import Foundation
import Testing

/// The errors of a first setup, from the binary: each names the line, the fix or the nearest
/// right word, on one line.
@Suite struct ErrorsNameTheFixCLITests {
    /// A config file holding `text`, checked: the exit status and stderr.
    func checked(_ text: String) async throws -> (status: Int32, stderr: String, path: String) {
        let path = temporaryFile("config.toml")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(["check-config", path])
        return (run.status, run.stderr, path)
    }

    @Test func aTopLevelKeyAfterATableNamesItsLine() async throws {
        let run = try await checked("[resume]\nafter_reboot = true\nprogram = \"tabata\"\n")
        #expect(run.status == 78)
        #expect(run.stderr == "roundclock: \(run.path): line 3: resume.program: unknown key; "
                + "top-level keys go before the first [table]: move line 3 above it\n")
    }

    @Test func aBoardFileCheckedAsTheConfigIsNamedAsOne() async throws {
        let board = CheckConfigTests.repository.appendingPathComponent("boards/pi4.toml").path
        let run = try await CLIRun.run(["check-config", board])
        #expect(run.status == 78)
        #expect(run.stderr == "roundclock: \(board): this is a board file: use board = \"pi4\" in the config "
                + "(e.g. /etc/roundclock/config.toml)\n")
    }

    @Test func aMistypedKeyGetsTheNearestOne() async throws {
        let run = try await checked("progam = \"tabata\"\n")
        #expect(run.status == 78)
        #expect(run.stderr == "roundclock: \(run.path): line 1: progam: unknown key; did you mean 'program'?\n")
    }

    @Test func aBoardIsNamedByItsShortName() async throws {
        let shipped = try await checked("board = \"pi4\"\n")
        #expect(shipped.status == 0 || shipped.stderr.contains("board file \"/usr/share/roundclock/boards/pi4.toml\": cannot open"),
                "the shipped file, wherever it is installed: \(shipped.stderr)")
        let unknown = try await checked("board = \"pi-4\"\n")
        #expect(unknown.status == 78)
        #expect(unknown.stderr == "roundclock: \(unknown.path): line 1: board: \"pi-4\" is not a shipped board; did you mean \"pi4\"? "
                + "the shipped boards are bigdigits, generic, pi-zero-2w, pi3, pi4, pi5, simulator; "
                + "for a file of your own give its path, e.g. \"./pi-4.toml\"\n")
    }

    @Test func programsDescribesAProgramOfItsConfig() async throws {
        let config = temporaryFile("hiit.toml")
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "[programs]\nhiit = \"10 x 0:30/0:30\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let run = try await CLIRun.run(["programs", "--config", config, "hiit", "tabata"])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = run.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ").first.map(String.init) }
        #expect(rows == ["hiit", "tabata"], "\(run.stdout)")
        let typo = try await CLIRun.run(["programs", "--config", config, "hit"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("did you mean \"hiit\"?") && typo.stderr.contains("or one of \(config)'s programs: hiit"), "\(typo.stderr)")
    }

    @Test func aMistypedOptionIsNamedWithTheNearestOne() async throws {
        let run = try await CLIRun.run(["programs", "--confg", "x.toml"])
        #expect(run.status == 64)
        #expect(run.stderr == "roundclock: error: unknown option '--confg'; did you mean '--config'? (see 'roundclock programs --help')\n")
        let render = try await CLIRun.run(["render", "--dispaly", "seg7x4", "1:00"])
        #expect(render.stderr == "roundclock: error: unknown option '--dispaly'; did you mean '--display'? (see 'roundclock render --help')\n")
        for subcommand in ["simulate", "run", "programs", "render", "probe", "test-display", "check-config", "apply-card",
                           "settings", "settings show"] {
            let typo = try await CLIRun.run(subcommand.split(separator: " ").map(String.init) + ["--hepl"])
            #expect(typo.status == 64 && typo.stderr == "roundclock: error: unknown option '--hepl'; did you mean '--help'? "
                    + "(see 'roundclock \(subcommand) --help')\n", "\(subcommand): \(typo.stderr)")
        }
    }

    @Test func helpOfAnUnknownSubcommandFails() async throws {
        let run = try await CLIRun.run(["help", "simulat"])
        #expect(run.status == 64 && run.stdout.isEmpty)
        #expect(run.stderr == "roundclock: error: unknown subcommand 'simulat'; did you mean 'simulate'? (see 'roundclock --help')\n")
        let known = try await CLIRun.run(["help", "simulate"])
        #expect(known.status == 0 && known.stdout.contains("USAGE: roundclock simulate"))
        for arguments in [["help", "settings", "sho"], ["settings", "sho"]] {
            let nested = try await CLIRun.run(arguments)
            #expect(nested.status == 64 && nested.stderr == "roundclock: error: unknown subcommand 'sho'; did you mean 'show'? "
                    + "(see 'roundclock settings --help')\n", "\(arguments): \(nested.stderr)")
        }
    }
}
