import RoundClockCore
import Testing
import TestSupport
import TOML
@testable import RoundClockConfig

/// The setup page's settings laid over the config file: only the page's keys, each checked
/// by the config file's checker once laid over it, errors naming the layer when its key is
/// wrong, and where each setting comes from.
@Suite struct SettingsLayerTests {
    static let file = """
        program = "tabata"
        start_at = ["18:30"]

        [brightness]
        day = 12
        night = 4

        [remote]
        pin = "482913"
        """

    static func layer(_ pairs: [(String, TOMLValue?)]) throws -> SettingsLayer {
        var layer = SettingsLayer()
        for (key, value) in pairs { layer = try layer.setting(key, to: value) }
        return layer
    }

    @Test func theLayerWinsKeyByKey() throws {
        let layer = try Self.layer([("brightness.day", .integer(3)), ("program", .string("emom"))])
        let config = try Config.parse(Self.file, file: "/etc/roundclock/config.toml", layer: layer, layerFile: "settings.toml")
        #expect(config.brightness.day == 3 && config.brightness.night == 4, "night stays the file's")
        #expect(config.program.name == "emom:10")
        #expect(config.classStarts?.secondsOfDay == [18 * 3600 + 30 * 60])
        #expect(config.remote.pin == "482913")
        let alone = try Config.parse(Self.file, file: "/etc/roundclock/config.toml")
        #expect(alone.brightness.day == 12 && alone.program.name == "tabata")
    }

    @Test func onlyThePageKeysCanBeSet() throws {
        let error = try #require(thrownError(ConfigError.self) { _ = try SettingsLayer().setting("wifi.passphrase", to: .string("x")) })
        #expect(error.description.hasPrefix("settings: wifi.passphrase: the setup page cannot set this key (it sets board, program,"))
        #expect(error.description.hasSuffix("; set it in /etc/roundclock/config.toml"))
        let file = try #require(thrownError(ConfigError.self) { _ = try SettingsLayer.load("[remote]\npin = \"1\"\n", file: "/var/lib/roundclock/settings.toml") })
        #expect(file.description.hasPrefix("/var/lib/roundclock/settings.toml: remote.pin: the setup page cannot set this key"))
    }

    /// A path would have the clock read any file it can and show the start of it in the error.
    @Test func theBoardIsAShippedOneByNameNeverAPath() throws {
        for value in ["../../../../etc/passwd", "/etc/shadow", "pi4.toml", "my-board"] {
            let error = try #require(thrownError(ConfigError.self) { _ = try SettingsLayer().setting("board", to: .string(value)) })
            #expect(error.description.hasPrefix("settings: board: \"\(value)\" is not a shipped board; the setup page picks one of bigdigits,"))
        }
        #expect(try SettingsLayer().setting("board", to: .string("pi4")).value("board") == .string("pi4"))
        let file = try #require(thrownError(ConfigError.self) { _ = try SettingsLayer.load("board = \"/etc/passwd\"\n", file: "s.toml") })
        #expect(file.description.hasPrefix("s.toml: board: \"/etc/passwd\" is not a shipped board"))
    }

    @Test func aBadValueNamesTheLayerAndTheFileStaysBlamedForItsOwn() throws {
        let layer = try Self.layer([("brightness.day", .integer(30))])
        let error = try #require(thrownError(ConfigError.self) {
            _ = try Config.parse(Self.file, file: "/etc/roundclock/config.toml", layer: layer, layerFile: "settings")
        })
        #expect(error.description == "settings: brightness.day: 30 is out of range; allowed are 0 to 15")
        let brighter = try Self.layer([("brightness.day", .integer(3))])
        let wrongFile = try #require(thrownError(ConfigError.self) {
            _ = try Config.parse(Self.file + "\n[idle]\nclock_after_minutes = -1\n", file: "/etc/roundclock/config.toml",
                                 layer: brighter, layerFile: "settings")
        })
        #expect(wrongFile.file == "/etc/roundclock/config.toml")
        let lateStart = try Self.layer([("start_at", .array([.string("25:00")]))])
        let time = try #require(thrownError(ConfigError.self) {
            _ = try Config.parse(Self.file, file: "c.toml", layer: lateStart, layerFile: "settings")
        })
        #expect(time.description.hasPrefix("settings: start_at: \"25:00\" is not a time of day"))
    }

    @Test func theFileReadsBackAndRemovingAKeyGoesBackToTheFile() throws {
        let layer = try Self.layer([("display.cadence", .string("live")), ("brightness.night_from", .string("21:00")), ("board", .string("simulator"))])
        #expect(layer.text == "board = \"simulator\"\n\n[display]\ncadence = \"live\"\n\n[brightness]\nnight_from = \"21:00\"\n")
        let reread = try SettingsLayer.load(layer.text, file: "settings.toml")
        #expect(reread == layer)
        let back = try reread.setting("display.cadence", to: nil)
        #expect(back.keyPaths == ["board", "brightness.night_from"])
        #expect(try SettingsLayer.load("", file: "settings.toml") == SettingsLayer())
    }

    @Test func aBoardChangeWaitsForIdleAndTheRestIsLive() throws {
        let old = try Self.layer([("brightness.day", .integer(3))])
        #expect(try old.setting("brightness.day", to: .integer(5)).effect(since: old) == .live)
        #expect(try old.setting("board", to: .string("simulator")).effect(since: old) == .whenIdle)
        #expect(old.effect(since: old) == nil)
        #expect(SettingsLayer.keys.map(\.key).allSatisfy { SettingsLayer.effect(of: $0) != nil })
    }

    @Test func whereEachSettingComesFromHidesSecrets() throws {
        let layer = try Self.layer([("brightness.day", .integer(3)), ("display.cadence", .string("live"))])
        let lines = try Config.sources(fileText: Self.file, file: "/etc/roundclock/config.toml", layer: layer, layerFile: "/var/lib/roundclock/settings.toml")
        #expect(lines == [
            "  program = \"tabata\"                <- /etc/roundclock/config.toml",
            "  start_at = [\"18:30\"]              <- /etc/roundclock/config.toml",
            "  brightness.night = 4              <- /etc/roundclock/config.toml",
            "  remote.pin = (not shown)          <- /etc/roundclock/config.toml",
            "  brightness.day = 3                <- /var/lib/roundclock/settings.toml (the setup page, over the file's 12)",
            "  display.cadence = \"live\"          <- /var/lib/roundclock/settings.toml (the setup page)",
        ])
    }

    @Test func theRunningClockTakesTheLiveSettings() throws {
        let before = try Config.parse(Self.file, file: "c.toml")
        let after = try Config.parse(Self.file, file: "c.toml", layer: try Self.layer([("brightness.day", .integer(2))]), layerFile: "s")
        let settings = after.clockSettings(since: before)
        #expect(settings.program == nil, "the program did not change")
        #expect(settings.brightness.day == 2)
        let values = Dictionary(uniqueKeysWithValues: after.settingsValues.map { ($0.key, $0.value) })
        #expect(values["brightness.day"] == .integer(2) && values["start_at"] == .array([.string("18:30")]))
        #expect(Set(values.keys) == Set(SettingsLayer.keys.map(\.key)))
    }
}
