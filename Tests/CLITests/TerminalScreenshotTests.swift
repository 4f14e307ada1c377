import Foundation
import Testing

/// The simulator's picture in a real terminal (xterm on Xvfb), checked cell by cell against
/// tmux's view of the same run: `Tests/screenshots/simulator_screenshot.py`. It keeps the
/// picture at `.build-artifacts/simulator.png`; `scripts/screenshots` copies it to
/// `docs/images/`. Needs Xvfb, xterm, tmux and ImageMagick (`scripts/setup.sh --test`
/// installs them); where they are missing (the trixie root filesystem has no X server) the
/// test is skipped and says so.
@Suite struct TerminalScreenshotTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let tools = ["/usr/bin/Xvfb", "/usr/bin/xterm", "/usr/bin/tmux", "/usr/bin/import"]
    static let toolsPresent = tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: toolsPresent, "needs Xvfb, xterm, tmux and ImageMagick: scripts/setup.sh --test"))
    func theSimulatorInARealTerminal() async throws {
        let script = Self.repository.appendingPathComponent("Tests/screenshots/simulator_screenshot.py")
        let run = try await CLIRun.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path],
                                       environment: ["ROUNDCLOCK": CLIRun.binary.path])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("ok: xterm "), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("simulator screenshot: all passed\n"), "\(run.stdout)\n\(run.stderr)")
    }
}
