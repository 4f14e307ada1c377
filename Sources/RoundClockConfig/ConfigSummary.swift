import Hex
import RoundClockCore

extension Config {
    /// A few lines describing a valid configuration and its board (`check-config`).
    public func summary(board: Board) -> String {
        var lines: [String] = ["\(file): OK"]
        let panels = board.panels.map { "\($0.role.rawValue) \($0.kind.rawValue) at 0x\(hex($0.address))" }
        let buttons = Button.allCases.compactMap { b in board.buttons[b].map { "\(b.rawValue) \($0)" } }
        let source: String = if case .file(let path) = self.board { path } else { "built in" }
        lines.append("board: \(board.name) (\(source)), I2C bus \(board.i2cBus): \(panels.joined(separator: ", "))")
        lines.append("buttons: \(buttons.isEmpty ? "none" : buttons.joined(separator: ", ")); long press \(milliseconds(buttons: \.longPress)) ms, debounce \(milliseconds(buttons: \.debounce)) ms")
        lines.append("buzzer: \(board.buzzer ?? "none")")
        lines.append(sound.summary)
        if voice.enabled { lines.append("voice: on, \(voice.language)\(voice.voice.map { " (\($0))" } ?? ""), volume \(voice.volume)%") }
        if !board.lights.isEmpty {
            let lamps = Lamp.allCases.compactMap { lamp in board.lights[lamp].map { "\(lamp.rawValue) \($0)" } }
            lines.append("stack light: \(lamps.joined(separator: ", "))\(board.lightsActiveLow ? " (active low)" : "")")
        }
        if let horn = board.horn {
            let blasts = Signal.allCases.filter { !self.horn[$0].isEmpty }.map(\.rawValue)
            lines.append("horn: \(horn)\(board.hornActiveLow ? " (active low)" : ""); sounds for \(blasts.isEmpty ? "no signal" : blasts.joined(separator: ", "))")
        }
        lines.append("program: \(program.name)\(program.total.map { " (\($0.clockNotation))" } ?? "")")
        if !programs.isEmpty { lines.append("custom programs: \(programs.map(\.name).joined(separator: ", "))") }
        if let classStarts {
            let times = classStarts.secondsOfDay.map(Self.timeOfDay(seconds:))
            lines.append("starts by itself at: \(times.joined(separator: ", "))")
        }
        let b = brightness
        if b.day == b.night {
            lines.append("brightness: \(b.day)")
        } else {
            lines.append("brightness: \(b.day), \(b.night) from \(BrightnessSchedule.text(minuteOfDay: b.nightFrom)) to \(BrightnessSchedule.text(minuteOfDay: b.dayFrom))")
        }
        lines.append("idle: \(idleClockAfter.map { "wall clock after \($0.components.seconds / 60) min" } ?? "stays ready")")
        lines.append("on shutdown: \(onShutdown.rawValue); resume after reboot: \(resumeAfterReboot ? "yes" : "no")")
        if let mqtt {
            let broker = mqtt.host.contains(":") ? "[\(mqtt.host)]:\(mqtt.effectivePort)" : "\(mqtt.host):\(mqtt.effectivePort)"
            let prefix = mqtt.topicPrefix ?? "roundclock/<hostname>"
            lines.append("mqtt (roundclock-gateway): broker \(broker)\(mqtt.caFile == nil ? "" : " over TLS"), topics \(prefix)/…, discovery \(mqtt.discoveryPrefix)/…")
        }
        if let sync { lines.append("sync group: \(sync.group)") }
        if system.hostname != nil || system.timezone != nil {
            let parts = [system.hostname.map { "host name \($0)" }, system.timezone.map { "time zone \($0)" }].compactMap { $0 }
            lines.append("system (apply-card): \(parts.joined(separator: ", "))")
        }
        if let wifi {
            let key = wifi.passphrase == nil ? "no passphrase on the card" : "passphrase given"
            lines.append("wifi (apply-card): \"\(wifi.ssid)\", \(key)\(wifi.country.map { ", country \($0)" } ?? "")\(wifi.hidden ? ", hidden" : "")")
        }
        return lines.joined(separator: "\n")
    }

    private func milliseconds(buttons key: KeyPath<ButtonSettings, Duration>) -> Int64 {
        buttons[keyPath: key].wholeMilliseconds
    }
}
