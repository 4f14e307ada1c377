import Foundation
import Testing

/// Runs the commands of one doctest block (a page's ```` ```console doctest ```` or a man
/// page's `.EX` block) in one scratch directory, in order; the first that fails is recorded
/// and ends the block (the next ones would fail for its sake).
enum DoctestRunner {
    static func run(_ commands: [DoctestCommand], where place: String, setup: String? = nil) async throws {
        let scratch = try DocsScratch()
        if let setup {
            let run = try await DocsShell.run(setup, in: scratch.url)
            guard run.status == 0 else {
                Issue.record("\(place): the set-up command \(setup) exits \(run.status): \(run.output)")
                return
            }
        }
        for command in commands {
            let run = try await DocsShell.run(command.command, in: scratch.url)
            let actual = DoctestCommand.lines(run.output)
            let statusOK = run.status == command.exitStatus
            let outputOK = command.expected.isEmpty || DoctestCommand.matches(expected: command.expected, actual: actual)
            guard statusOK && outputOK else {
                Issue.record(Comment(rawValue: failure(place: place, command: command, run: run, actual: actual)))
                return
            }
        }
    }

    private static func failure(place: String, command: DoctestCommand, run: DocsShellRun, actual: [String]) -> String {
        let shownStatus = run.timedOut ? "\(run.status) (timeout(1): it ran over \(DocsShell.timeoutSeconds) s or was killed)" : "\(run.status)"
        let expected = command.expected.isEmpty ? "  (any output)" : command.expected.map { "  " + $0 }.joined(separator: "\n")
        return """
            \(place):\(command.line): $ \(command.command)
            exit status \(shownStatus), expected \(command.exitStatus)
            expected output:
            \(expected)
            actual output:
            \(actual.map { "  " + $0 }.joined(separator: "\n"))
            """
    }
}

/// A TOML example through `roundclock check-config`: marked `board`, as the board file a
/// config names (check-config loads and checks that board, layouts and panels included);
/// `invalid`, it must fail with 78 (EX_CONFIG); `speaker`, it may fail only on its sound
/// device or mixer, which this machine may not have. The packages' boards,
/// `/usr/share/roundclock/boards/NAME.toml`, are read from the checkout's `boards/`.
enum TOMLBlockCheck {
    static let marks: Set<String> = ["board", "invalid", "speaker"]

    static func run(_ text: String, marks: Set<String>, where place: String, info: String, in scratch: DocsScratch) async throws {
        let text = text.replacingOccurrences(of: "\"/usr/share/roundclock/boards/",
                                             with: "\"" + DocsRepo.root.appendingPathComponent("boards").path + "/")
        let tag = place.replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: ":", with: "-line")
        let name = "example-\(tag).toml"
        if marks.contains("board") {
            try scratch.write(text, to: "board-\(tag).toml")
            try scratch.write("board = \"board-\(tag).toml\"\n", to: name)
        } else {
            try scratch.write(text, to: name)
        }
        let run = try await DocsShell.run(DocsRepo.roundclock, ["check-config", name], in: scratch.url)
        let onlyTheDevice = marks.contains("speaker") && run.status == 78
            && (run.output.contains(": sound.device: sound device") || run.output.contains(": sound.mixer: mixer of sound device"))
        if marks.contains("invalid") {
            #expect(run.status == 78, "\(place): a \(info) example must fail check-config with 78 (EX_CONFIG); got \(run.status): \(run.output)")
        } else {
            #expect(run.status == 0 || onlyTheDevice, "\(place): \(info) fails check-config: \(run.output)")
        }
    }
}
