import TOML
import RoundClockCore

extension Config {
    /// Preset names a custom program may not take (`Presets.reservedNames`: MODE, `--program`
    /// and the presets outside the cycle use them).
    public static let reservedNames = Presets.reservedNames

    /// The top-level keys that hold values; the others are tables.
    package static let topLevelValueKeys = ["board", "program", "start_at"]

    /// Reads and validates a configuration file; errors name the file and the line or key path.
    /// Without `readingSoundFiles` (the gateway, which plays nothing and may not read the
    /// clock's files), `[sound]`'s WAV files are named but not read: their sources hold no
    /// samples.
    public static func load(_ path: String, readingSoundFiles: Bool = true) throws(ConfigError) -> Config {
        try parse(try readTextFile(path), file: path, recorder: nil, readingSoundFiles: readingSoundFiles)
    }

    /// Validates configuration text. `file` names it in errors and anchors relative board paths.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> Config {
        try parse(text, file: file, recorder: nil)
    }

    /// `parse(_:file:)`, noting every key path it asks for in `recorder`; a board's short name
    /// is looked for in `boardDirectories`.
    package static func parse(_ text: String, file: String, recorder: KeyPathRecorder?, readingSoundFiles: Bool = true,
                              boardDirectories: [String] = ShippedBoards.directories) throws(ConfigError) -> Config {
        try read(try TOMLReader.parse(text, file: file, recorder: recorder), file: file, readingSoundFiles: readingSoundFiles,
                 boardDirectories: boardDirectories)
    }

    /// Reads a parsed document: `parse`'s checks, and a settings layer's once laid over the file.
    static func read(_ document: TOMLReader, file: String, readingSoundFiles: Bool,
                     boardDirectories: [String] = ShippedBoards.directories) throws(ConfigError) -> Config {
        var root = document
        if BoardFile.isBoardShaped(root.table) { throw BoardFile.readAsConfig(file) }
        root.topLevelValueKeys = topLevelValueKeys
        var config = Config.defaults(file: file)

        if let board = try root.string("board") {
            config.board = try boardSource(board, file: file, reader: root, directories: boardDirectories)
        }
        if var table = try root.table("programs") {
            config.programs = try customPrograms(&table)
            try table.finish()
        }
        if let spec = try root.string("program") {
            config.program = try selectedProgram(spec, config: config, reader: root)
        }
        if let times = try root.strings("start_at") {
            config.classStarts = try classStarts(times, root)
        }
        if var table = try root.table("buttons") {
            if let ms = try table.int("long_press_ms", in: 300...10_000) { config.buttons.longPress = .milliseconds(ms) }
            if let ms = try table.int("debounce_ms", in: 0...200) { config.buttons.debounce = .milliseconds(ms) }
            try table.finish()
        }
        if var table = try root.table("buzzer") {
            for signal in Signal.allCases {
                if let pattern = try buzzerPattern(signal, &table) { config.buzzer[signal] = pattern }
            }
            try table.finish()
        }
        if var table = try root.table("sound") {
            config.sound = try SoundSettings.read(&table, configFile: file, readingFiles: readingSoundFiles)
        }
        if var table = try root.table("voice") {
            config.voice = try VoiceSettings.read(&table)
        }
        if var table = try root.table("horn") {
            for signal in Signal.allCases {
                if let pattern = try buzzerPattern(signal, &table) { config.horn[signal] = pattern }
            }
            try table.finish()
        }
        if var table = try root.table("brightness") {
            config.brightness = try brightness(&table)
            try table.finish()
        }
        if var table = try root.table("idle") {
            if let minutes = try table.int("clock_after_minutes", in: 0...1440) {
                config.idleClockAfter = minutes == 0 ? nil : .seconds(60 * minutes)
            }
            try table.finish()
        }
        if var table = try root.table("display") {
            if let choice = try table.choice("on_shutdown", ShutdownPicture.allCases.map(\.rawValue)),
               let picture = ShutdownPicture(rawValue: choice) {
                config.onShutdown = picture
            }
            if let choice = try table.choice("cadence", Cadence.allCases.map(\.rawValue)), let cadence = Cadence(rawValue: choice) {
                config.cadence = cadence
            }
            try table.finish()
        }
        if var table = try root.table("remote") {
            config.remote = try RemoteSettings.read(&table, configFile: file)
        }
        if var table = try root.table("mqtt") {
            config.mqtt = try MQTTSettings.read(&table, configFile: file)
        }
        if var table = try root.table("sync") {
            config.sync = try SyncSettings.read(&table)
            guard let mqtt = config.mqtt else {
                throw table.fail("group", "a group shares its session through an MQTT broker; add an [mqtt] table")
            }
            if let id = mqtt.clientID, let problem = SyncSettings.memberProblem(id) {
                throw table.fail("group", problem)
            }
        }
        if var table = try root.table("system") {
            config.system = try SystemSettings.read(&table)
        }
        if var table = try root.table("wifi") {
            config.wifi = try WifiSettings.read(&table)
        }
        if var table = try root.table("resume") {
            if let allowed = try table.bool("after_reboot") { config.resumeAfterReboot = allowed }
            try table.finish()
        }
        try root.finish()
        return config
    }

    /// `"simulator"`, a shipped board's short name (`"pi4"`: no slash, no dot), or a path,
    /// relative to the config file's directory.
    private static func boardSource(_ value: String, file: String, reader: TOMLReader,
                                    directories: [String]) throws(ConfigError) -> BoardSource {
        let trimmed = value.trimmed
        guard !trimmed.isEmpty else { throw reader.fail("board", "empty; use \"simulator\", a shipped board such as \"pi4\" or the path of a board file") }
        if trimmed == "simulator" { return .simulator }
        if ShippedBoards.isShortName(trimmed) {
            guard ShippedBoards.names.contains(trimmed) else { throw reader.fail("board", ShippedBoards.unknownNameMessage(trimmed)) }
            return .file(ShippedBoards.path(of: trimmed, in: directories))
        }
        if trimmed.hasPrefix("/") { return .file(trimmed) }
        guard let slash = file.lastIndex(of: "/") else { return .file(trimmed) }
        return .file(String(file[...slash]) + trimmed)
    }

    static func customPrograms(_ table: inout TOMLReader) throws(ConfigError) -> [Program] {
        var out: [Program] = []
        for name in table.claimAllKeys() {
            guard name.isValidProgramName else {
                throw table.fail(name, "\"\(name)\" is not a usable program name; use 1 to 24 lowercase letters, digits, '-' or '_', starting with a letter")
            }
            guard !reservedNames.contains(name) else {
                throw table.fail(name, "\"\(name)\" is a preset name; pick another name (reserved: \(reservedNames.joined(separator: ", ")))")
            }
            if table.peek(name)?.table != nil {
                guard var structured = try table.table(name) else { continue }
                out.append(try StructuredProgram.read(name: name, &structured))
                continue
            }
            let spec = try table.requiredString(name)
            let parsed: Program
            do { parsed = try ProgramSpec.parse(spec) } catch { throw table.fail(name, error.description) }
            guard parsed.kind == .intervals else { throw table.fail(name, "\"\(spec)\" is the wall clock; a custom program needs timed phases") }
            out.append(parsed.named(name))
        }
        return out
    }

    private static func selectedProgram(_ spec: String, config: Config, reader: TOMLReader) throws(ConfigError) -> Program {
        if let custom = config.programs.first(where: { $0.name == spec.trimmed }) { return custom }
        let names = config.programs.map(\.name)
        do {
            return try ProgramSpec.parse(spec, alsoNamed: names)
        } catch {
            var error = error
            if !names.isEmpty { error.expected += "; or a name from [programs]: \(names.joined(separator: ", "))" }
            throw reader.fail("program", error.description)
        }
    }

    private static func buzzerPattern(_ signal: Signal, _ table: inout TOMLReader) throws(ConfigError) -> [Duration]? {
        let key = BuzzerPatterns.key(signal)
        guard let values = try table.intOrIntArray(key, what: "milliseconds: a whole number (one beep, 0 = silent) or an array [on, off, on, ...]") else { return nil }
        if values == [0] { return [] }
        guard values.count % 2 == 1, values.count <= 9 else {
            throw table.fail(key, "\(values.count) durations; a pattern is on, off, on, ... and must end with an on time (1, 3, 5, 7 or 9 numbers)")
        }
        for (index, ms) in values.enumerated() where !(10...5000).contains(ms) {
            throw table.fail(key, "\(ms) ms (\(index % 2 == 0 ? "on" : "off") time \(index / 2 + 1)) is out of range; each on/off time is 10 to 5000 ms")
        }
        let total = values.reduce(0, +)
        let isTick = signal == .prepTick || signal == .tick
        let limit = isTick ? 900 : 5000
        guard total <= limit else {
            let why = signal == .prepTick ? " (prep ticks come 1 s apart)" : isTick ? " (ticks come 1 s apart)" : ""
            throw table.fail(key, "the pattern lasts \(total) ms; at most \(limit) ms allowed\(why)")
        }
        return values.map { .milliseconds($0) }
    }

    private static func brightness(_ table: inout TOMLReader) throws(ConfigError) -> BrightnessSchedule {
        var schedule = BrightnessSchedule()
        if let day = try table.int("day", in: 0...15) {
            schedule.day = UInt8(day)
            schedule.night = UInt8(day)
        }
        if let night = try table.int("night", in: 0...15) { schedule.night = UInt8(night) }
        if let text = try table.string("night_from") { schedule.nightFrom = try minuteOfDay(text, key: "night_from", table) }
        if let text = try table.string("day_from") { schedule.dayFrom = try minuteOfDay(text, key: "day_from", table) }
        guard schedule.nightFrom != schedule.dayFrom else {
            throw table.fail("day_from", "\"\(BrightnessSchedule.text(minuteOfDay: schedule.dayFrom))\" equals night_from; the night needs a start and a different end")
        }
        return schedule
    }

    /// `start_at`: 1 to 48 times of day `HH:MM` or `HH:MM:SS`, all different.
    private static func classStarts(_ times: [String], _ root: TOMLReader) throws(ConfigError) -> ClassStarts? {
        guard (1...48).contains(times.count) else {
            throw root.fail("start_at", "\(times.count) times; give 1 to 48, e.g. [\"06:00\", \"18:30\"] (leave the key out for none)")
        }
        var seconds: [Int] = []
        for text in times {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count), parts[0].count == 2, parts.dropFirst().allSatisfy({ $0.count == 2 }),
                  let h = WholeNumber.parse(parts[0], atMost: 23), let m = WholeNumber.parse(parts[1], atMost: 59),
                  let s = parts.count == 3 ? WholeNumber.parse(parts[2], atMost: 59) : 0 else {
                throw root.fail("start_at", "\(escapedBasicString(text)) is not a time of day; use \"HH:MM\" or \"HH:MM:SS\" from \"00:00\" to \"23:59:59\", e.g. \"18:30\"")
            }
            let value = Int((h * 60 + m) * 60 + s)
            guard !seconds.contains(value) else { throw root.fail("start_at", "\(escapedBasicString(text)) is listed twice") }
            seconds.append(value)
        }
        return ClassStarts(secondsOfDay: seconds)
    }

    /// `HH:MM` (or `H:MM`), 00:00 to 23:59.
    private static func minuteOfDay(_ text: String, key: String, _ table: TOMLReader) throws(ConfigError) -> Int {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              let h = WholeNumber.parse(parts[0], atMost: 23), let m = WholeNumber.parse(parts[1], atMost: 59) else {
            throw table.fail(key, "\"\(text)\" is not a time of day; use \"HH:MM\" from \"00:00\" to \"23:59\", e.g. \"22:00\"")
        }
        return Int(h * 60 + m)
    }
}

extension StringProtocol {
    var isValidProgramName: Bool {
        guard let first = first, first.isASCII, first.isLowercase, count <= 24 else { return false }
        return allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
