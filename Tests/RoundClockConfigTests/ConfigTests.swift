import Foundation
import RoundClockCore
import Testing
@testable import RoundClockConfig

@Suite struct ConfigTests {
    static let repository = BoardFileTests.repository
    static let example = repository.appendingPathComponent("systemd/config.example.toml").path

    @Test func exampleConfigParsesWithDocumentedValues() throws {
        let config = try Config.load(Self.example)
        #expect(config.board == .simulator)
        #expect(config.program.name == "boxing")
        #expect(config.programs.map(\.name) == ["hiit", "sparring"])
        #expect(config.programs[0].rounds == 10 && config.programs[0].warning == .seconds(5))
        #expect(config.catalog.map(\.name) == Presets.cycle.map(\.name) + ["hiit", "sparring"])
        #expect(config.buttons.longPress == .seconds(2) && config.buttons.debounce == .milliseconds(30))
        #expect(config.buzzer == BuzzerPatterns(), "the example states the defaults")
        #expect(config.sound == SoundSettings() && config.voice == VoiceSettings(), "the example states the defaults")
        #expect(config.horn == BuzzerPatterns(Signal.defaultHornPatterns), "the example states the horn's defaults")
        #expect(config.brightness == BrightnessSchedule(day: 15, night: 4, nightFrom: 22 * 60, dayFrom: 7 * 60))
        #expect(config.idleClockAfter == nil && config.onShutdown == .blank && config.resumeAfterReboot)
        let board = try config.loadBoard()
        let simulator = try BoardFile.simulator()
        #expect(board == simulator)
        #expect(config.summary(board: board).hasPrefix("\(Self.example): OK\nboard: simulator (built in)"))
    }

    @Test func emptyFileIsTheDefaults() throws {
        let config = try Config.parse("# nothing\n", file: "/etc/roundclock/config.toml")
        var expected = Config.defaults(file: "/etc/roundclock/config.toml")
        expected.file = config.file
        #expect(config == expected)
        #expect(config.brightness.level(at: WallTime(hour: 23, minute: 0)) == 15)
    }

    @Test func everyKeyIsRead() throws {
        let config = try Config.parse("""
            board = "boards/pi.toml"
            program = "warmup"
            [programs]
            warmup = "3 x 1:00/0:30, prep 0:05"
            alias = "emom:12"
            [buttons]
            long_press_ms = 1500
            debounce_ms = 0
            [buzzer]
            prep_tick_ms = 0
            start_ms = [100, 50, 100]
            [brightness]
            day = 12
            night_from = "1:30"
            day_from = "06:00"
            [idle]
            clock_after_minutes = 15
            [display]
            on_shutdown = "last"
            cadence = "live"
            [resume]
            after_reboot = false
            """, file: "/etc/roundclock/config.toml")
        #expect(config.board == .file("/etc/roundclock/boards/pi.toml"))
        #expect(config.program.name == "warmup" && config.program.phases.count == 6)
        #expect(config.programs.map(\.name) == ["alias", "warmup"])
        #expect(config.resolveProgram("alias")?.rounds == 12)
        #expect(config.resolveProgram("tabata") == Presets.tabata)
        #expect(config.resolveProgram("nonsense") == nil)
        #expect(config.buttons.longPress == .milliseconds(1500) && config.buttons.debounce == .zero)
        #expect(config.buzzer[.prepTick] == [] && config.buzzer[.start] == [.milliseconds(100), .milliseconds(50), .milliseconds(100)])
        #expect(config.buzzer[.finish] == BuzzerPatterns()[.finish])
        #expect(config.brightness == BrightnessSchedule(day: 12, night: 12, nightFrom: 90, dayFrom: 360))
        #expect(config.idleClockAfter == .seconds(900) && config.onShutdown == .last && !config.resumeAfterReboot)
        #expect(config.cadence == .live)
        #expect(try Config.parse("", file: "empty.toml").cadence == .seconds, "the gym display by default")
    }

    @Test func absoluteBoardPathAndBareFileName() throws {
        #expect(try Config.parse(#"board = "/usr/share/roundclock/boards/x.toml""#, file: "/etc/roundclock/config.toml").board
                == .file("/usr/share/roundclock/boards/x.toml"))
        #expect(try Config.parse(#"board = "x.toml""#, file: "config.toml").board == .file("x.toml"))
    }

    @Test(arguments: [
        (22 * 60, 7 * 60, [0: true, 419: true, 420: false, 1319: false, 1320: true, 1439: true]),
        (90, 360, [0: false, 89: false, 90: true, 359: true, 360: false, 1439: false]),
    ])
    func nightInterval(from: Int, to: Int, expected: [Int: Bool]) {
        let schedule = BrightnessSchedule(day: 15, night: 3, nightFrom: from, dayFrom: to)
        for (minute, night) in expected {
            #expect(schedule.isNight(minuteOfDay: minute) == night, "minute \(minute)")
            #expect(schedule.level(at: WallTime(hour: minute / 60, minute: minute % 60, second: 59, day: 20000)) == (night ? 3 : 15))
        }
    }

    // MARK: The bad-config corpus: each file's first line is `# expect: FRAGMENT`.

    static let corpus = repository.appendingPathComponent("Tests/RoundClockConfigTests/BadConfigs")
    static let badFiles: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? [])
        .filter { $0.hasSuffix(".toml") }.sorted()

    @Test func corpusIsLarge() {
        #expect(Self.badFiles.count >= 50)
    }

    @Test(arguments: badFiles)
    func badConfigIsRejectedWithItsMessage(_ name: String) throws {
        let path = Self.corpus.appendingPathComponent(name).path
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        let first = try #require(text.split(separator: "\n").first)
        #expect(first.hasPrefix("# expect: "), "first line of \(name)")
        let fragment = String(first.dropFirst("# expect: ".count))
        do {
            let config = try Config.load(path)
            _ = try config.loadBoard()
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.description.contains(fragment), "\(name): \(error.description)")
            #expect(error.description.hasPrefix(Self.corpus.path + "/"), "names the file")
            #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "one line, no control characters")
        }
    }
}
