import Testing
import RoundClockCore
@testable import RoundClockConfig

/// The config's `[horn]`: the buzzer's keys and rules, the horn's own defaults.
@Suite struct HornConfigTests {
    @Test func defaultsAreBlastsForPhaseChangesAndSilentTicks() throws {
        let config = try Config.parse("", file: "c.toml")
        #expect(config.horn == BuzzerPatterns(Signal.defaultHornPatterns))
        #expect(config.horn[.start] == [.milliseconds(1500)] && config.horn[.end] == [.milliseconds(1500)])
        #expect(config.horn[.finish].reduce(.zero, +) == .milliseconds(4800))
        for signal in [Signal.prepTick, .tick, .halfway] { #expect(config.horn[signal].isEmpty, "\(signal)") }
        #expect(config.buzzer == BuzzerPatterns(), "the buzzer keeps its own defaults")
    }

    @Test func patternsAreReadAsTheBuzzersAreAndApartFromThem() throws {
        let config = try Config.parse("""
            [buzzer]
            start_ms = 300

            [horn]
            start_ms = [800, 200, 800]
            tick_ms = 100
            finish_ms = 0
            """, file: "c.toml")
        #expect(config.horn[.start] == [.milliseconds(800), .milliseconds(200), .milliseconds(800)])
        #expect(config.horn[.tick] == [.milliseconds(100)])
        #expect(config.horn[.finish].isEmpty, "0 is silent")
        #expect(config.horn[.end] == [.milliseconds(1500)], "a key not given keeps the horn's default")
        #expect(config.buzzer[.start] == [.milliseconds(300)])
    }

    @Test(arguments: [
        ("[horn]\nstart_ms = [800, 200]", "horn.start_ms", "must end with an on time"),
        ("[horn]\ntick_ms = [500, 200, 500]", "horn.tick_ms", "at most 900 ms allowed"),
        ("[horn]\nend_ms = 6000", "horn.end_ms", "each on/off time is 10 to 5000 ms"),
        ("[horn]\nline = \"GPIO26\"", "horn.line", "unknown key"),
        ("[horn]\nstart_ms = \"long\"", "horn.start_ms", "milliseconds"),
    ])
    func badHornPatternsNameTheKey(text: String, location: String, message: String) {
        do {
            let config = try Config.parse(text, file: "c.toml")
            Issue.record("accepted \(config.horn)")
        } catch {
            #expect(error.location == location, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }
}
