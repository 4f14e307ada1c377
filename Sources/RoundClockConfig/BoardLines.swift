import RoundClockCore

extension BoardFile {
    /// `[lights]` (a line per lamp: `work`, `rest`, `warn`, each optional, at least one;
    /// `active_low`) and `[horn]` (`line`, `active_low`), read into `board`.
    static func outputLines(_ root: inout TOMLReader, into board: inout Board) throws(ConfigError) {
        if var table = try root.table("lights") {
            for lamp in Lamp.allCases {
                if let line = try lineName(lamp.rawValue, in: &table) { board.lights[lamp] = line }
            }
            board.lightsActiveLow = try table.bool("active_low") ?? false
            try table.finish()
            guard !board.lights.isEmpty else {
                throw table.fail("work", "[lights] names no line; give work, rest or warn a line, e.g. work = \"GPIO23\"")
            }
        }
        if var table = try root.table("horn") {
            board.horn = try lineName("line", in: &table, required: true)
            board.hornActiveLow = try table.bool("active_low") ?? false
            try table.finish()
        }
    }

    /// A GPIO line name (`GPIO17`) or `chip:offset`; an empty one is refused.
    static func lineName(_ key: String, in table: inout TOMLReader, required: Bool = false) throws(ConfigError) -> String? {
        guard let line = try table.string(key) else {
            if required { throw table.fail(key, "missing; it is required, e.g. \"GPIO18\" or \"gpiochip0:18\"") }
            return nil
        }
        guard !line.isEmpty else { throw table.fail(key, "empty line name; e.g. \"GPIO17\" or \"gpiochip0:17\"") }
        return line
    }

    /// Every GPIO line of the board by its key path, in file order: buttons, buzzer, lights, horn.
    static func gpioLines(_ board: Board) -> [(key: String, line: String)] {
        var lines: [(key: String, line: String)] = []
        for button in Button.allCases { if let line = board.buttons[button] { lines.append(("buttons.\(button.rawValue)", line)) } }
        if let line = board.buzzer { lines.append(("buzzer.line", line)) }
        for lamp in Lamp.allCases { if let line = board.lights[lamp] { lines.append(("lights.\(lamp.rawValue)", line)) } }
        if let line = board.horn { lines.append(("horn.line", line)) }
        return lines
    }

    /// A line named twice (`GPIO18` for the buzzer and the horn) could not be requested twice
    /// at start; it is refused now, naming both keys. Names are compared as written: `GPIO18`
    /// and `gpiochip0:18` may be one line, which only the kernel knows (`roundclock probe`).
    static func checkEachLineOnce(_ board: Board, file: String) throws(ConfigError) {
        var seen: [String: String] = [:]
        for (key, line) in gpioLines(board) {
            if let first = seen[line] {
                throw ConfigError(file: file, location: key, message: "\"\(line)\" is already \(first); each GPIO line serves one role")
            }
            seen[line] = key
        }
    }
}
