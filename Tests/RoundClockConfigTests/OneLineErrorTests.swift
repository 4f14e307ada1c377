import Testing
@testable import RoundClockConfig

/// Config errors are one line (docs/configuration.md), whatever the file holds: values,
/// keys and file names with newlines or control characters are shown escaped.
@Suite struct OneLineErrorTests {
    /// Strings a user (or an attacker) can put in a TOML string or key, as TOML escapes.
    static let payloads = [#"\n"#, #"a\r\nb"#, #"\u001b[2J"#, #"\u0000"#, #"x\ty"#, #"\u0085"#, #"\u2028"#, #"\u007f"#, #"\b\f"#, #"line1\nline2"#]

    /// Config texts with `PAYLOAD` where a value or key is echoed back in the error.
    static let configTemplates = [
        "board = \"PAYLOAD\"", "program = \"PAYLOAD\"", "[programs]\n\"PAYLOAD\" = \"emom:5\"", "[programs]\nx = \"PAYLOAD\"",
        "[programs]\nx = \"3 x 1:00/PAYLOAD\"", "[display]\non_shutdown = \"PAYLOAD\"", "[display]\ncadence = \"PAYLOAD\"",
        "[brightness]\nnight_from = \"PAYLOAD\"", "[buttons]\n\"PAYLOAD\" = 1", "\"PAYLOAD\" = 1", "[\"PAYLOAD\"]",
        "[buzzer]\nstart_ms = \"PAYLOAD\"", "[buzzer]\nstart_ms = [100, \"PAYLOAD\"]", "[resume]\nafter_reboot = \"PAYLOAD\"",
        "[idle]\nclock_after_minutes = { \"PAYLOAD\" = 1 }", "program = { a = \"PAYLOAD\" }",
    ]

    static let boardTemplates = [
        "name = \"PAYLOAD\"\n[[panels]]\nrole = \"PAYLOAD\"\nkind = \"seg7x4\"\naddress = 0x70",
        "name = \"x\"\n[[panels]]\nrole = \"time\"\nkind = \"PAYLOAD\"\naddress = 0x70",
        "name = \"x\"\n[[panels]]\nrole = \"time\"\nkind = \"seg7x4\"\naddress = \"PAYLOAD\"",
        "name = \"x\"\n[[panels]]\nrole = \"time\"\nkind = \"seg7x4\"\naddress = 0x70\n[buttons]\nbias = \"PAYLOAD\"",
        "name = \"x\"\n[[panels]]\nrole = \"time\"\nkind = \"seg7x4\"\naddress = 0x70\n\"PAYLOAD\" = 1",
    ]

    static func expectOneLine(_ error: ConfigError, _ input: String) {
        #expect(!error.description.unicodeScalars.contains(where: isControlCharacter), "\(input.debugDescription) → \(error.description.debugDescription)")
        #expect(!error.message.unicodeScalars.contains(where: isControlCharacter))
    }

    @Test func escapedControlCharactersInValuesAndKeys() {
        var rejected = 0
        for template in Self.configTemplates + Self.boardTemplates {
            for payload in Self.payloads {
                let text = template.replacing("PAYLOAD", with: payload)
                do {
                    if Self.boardTemplates.contains(template) {
                        _ = try BoardFile.parse(text, file: "board.toml")
                    } else {
                        _ = try Config.parse(text, file: "/etc/roundclock/config.toml").loadBoard()
                    }
                } catch {
                    rejected += 1
                    Self.expectOneLine(error, text)
                }
            }
        }
        #expect(rejected >= (Self.configTemplates.count + Self.boardTemplates.count - 1) * Self.payloads.count)
    }

    /// Every control byte (and U+0085, U+2028, U+FEFF) inserted raw at every position of a config.
    @Test func rawControlCharactersAnywhere() {
        let config = Array("board = \"simulator\"\nprogram = \"tabata\" # c\n[programs]\nx = 'emom:5'\n[display]\non_shutdown = \"\"\"last\"\"\"\n".utf8)
        let inserts: [[UInt8]] = (Array(0x00...0x1F) + [0x7F]).map { [UInt8($0)] } + [[0xC2, 0x85], [0xE2, 0x80, 0xA8], [0xEF, 0xBB, 0xBF]]
        var rejected = 0
        for position in 0...config.count {
            for insert in inserts {
                let text = String(decoding: Array(config[..<position]) + insert + Array(config[position...]), as: UTF8.self)
                do throws(ConfigError) { _ = try Config.parse(text, file: "config.toml") } catch {
                    rejected += 1
                    Self.expectOneLine(error, text)
                }
            }
        }
        #expect(rejected > config.count * 20)
    }

    @Test func fileNamesAreEscapedToo() {
        do {
            _ = try Config.load("/nonexistent/a\nb\u{1B}.toml")
            Issue.record("loaded")
        } catch {
            #expect(error.description == #"/nonexistent/a\nb\u001B.toml: cannot open: No such file or directory (errno 2)"#)
        }
    }
}

private func isControlCharacter(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
}
