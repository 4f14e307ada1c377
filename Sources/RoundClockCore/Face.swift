/// The panels a clock can have. A board maps each role to a backpack on the bus.
public enum PanelRole: String, Sendable, Hashable, CaseIterable {
    /// Four digits with a colon: the time.
    case time
    /// Four digits: round and number of rounds, `rr.tt` (` 3.12` = round 3 of 12).
    case round
    /// Four alphanumeric characters: `PREP`, `WORK`, `REST`, `DONE`, or the program's label.
    case phase
}

/// What one panel shows: text in the panel text format, and whether the whole panel
/// blinks (hardware blink, 1 Hz; used while paused).
public struct PanelText: Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public var blinking: Bool
    public init(_ text: String, blinking: Bool = false) {
        self.text = text
        self.blinking = blinking
    }
    public var description: String { blinking ? "\(text) (blinking)" : text }
}

/// Everything the clock shows at one instant.
public struct Face: Sendable, Hashable {
    public var time: PanelText
    public var round: PanelText
    public var phase: PanelText
    /// HT16K33 dimming level 0–15 for every panel (day/night schedule).
    public var brightness: UInt8 = 15
    /// The panels show a secret (the remote's PIN): what leaves the clock (state lines to
    /// the phone remote and MQTT) shows its digits masked.
    public var secret = false

    public subscript(role: PanelRole) -> PanelText {
        switch role {
        case .time: time
        case .round: round
        case .phase: phase
        }
    }
}

extension Face {
    /// The same face with every panel dark: all segments off (display RAM all zero), no
    /// blinking, same dimming. The picture `on_shutdown = "blank"` leaves on the panels.
    public var blanked: Face {
        var face = self
        face.time = PanelText("    ")
        face.round = PanelText("    ")
        face.phase = PanelText("    ")
        return face
    }
}

/// Builds faces from snapshots and the wall clock, and says how long each stays valid.
public enum FaceBuilder {
    /// The face for a timed session, and the time until it changes if the session keeps
    /// running (`nil`: it will not change by itself).
    /// `countedRounds`: rounds counted with MODE (AMRAP), shown on the round panel when > 0.
    /// `widths`: digits of the time and round panels (`PanelWidths`).
    public static func face(program: Program, snapshot s: Snapshot, cadence: Cadence = .seconds,
                            countedRounds: Int = 0, widths: PanelWidths = PanelWidths()) -> (face: Face, changesIn: Duration?) {
        let reading = switch s.phase.counting {
        case .down: PanelTime.countdown(s.remainingInPhase ?? .zero, cadence: cadence, digits: widths.time)
        case .up: PanelTime.countUp(s.elapsedInPhase, cadence: cadence, digits: widths.time)
        case .overtime: PanelTime.offset(s.elapsedInPhase)
        }
        let running = s.state == .running
        var time = reading.text
        // A frozen H:MM reading keeps its colon lit so it cannot be read as M:SS.
        if !running, !time.contains(":"), !time.contains("."), time.count == 4 {
            time.insert(":", at: time.index(time.startIndex, offsetBy: 2))
        }
        let phaseText: String
        switch s.state {
        case .ready: phaseText = label(program.label)
        case .finished: phaseText = "DONE"
        case .running, .paused: phaseText = s.phase.label.map(label) ?? s.phase.kind.panelText
        }
        // A 2-digit round panel shows the round alone (`roundText(digits:)`), sets and counts too.
        let roundText = widths.round < 4 ? roundText(round: s.round, of: s.rounds, digits: widths.round)
            : program.countsRounds && s.state != .ready && countedRounds > 0 ? countText(countedRounds)
            : program.sets > 1 ? setRoundText(set: s.phase.set, round: s.round) : roundText(round: s.round, of: s.rounds)
        let face = Face(
            time: PanelText(time, blinking: s.state == .paused),
            round: PanelText(roundText),
            phase: PanelText(phaseText))
        guard running else { return (face, nil) }
        var changesIn = reading.changesIn
        if let remaining = s.remainingInPhase, remaining > .zero {
            changesIn = min(changesIn ?? remaining, remaining)
        }
        return (face, changesIn)
    }

    /// The wall-clock face (`HH:MM`, 24 h) and the wall instant at which it next changes.
    /// Cadence `.seconds` blinks the colon at 1 Hz; `.minutes` keeps it lit and changes
    /// only on the minute. A time panel of 6 digits or more shows `HH:MM:SS` instead (cadence
    /// `.minutes`: `HH:MM`), changing on the second.
    public static func clockFace(program: Program, wallTime: WallTime, cadence: Cadence = .seconds,
                                 widths: PanelWidths = PanelWidths()) -> (face: Face, next: WallTime) {
        let reading = PanelTime.clock(timeOfDay: wallTime.timeOfDay)
        var text = reading.text
        let next: WallTime?
        if widths.time >= 6, cadence != .minutes {
            text = PanelTime.clockWithSeconds(timeOfDay: wallTime.timeOfDay)
            next = PeriodicSchedule(from: WallTime(sinceEpoch: .zero), by: PanelTime.second).next(after: wallTime)
        } else if cadence == .minutes {
            if !text.contains(":") { text.insert(":", at: text.index(text.startIndex, offsetBy: 2)) }
            next = EveryMinuteSchedule().next(after: wallTime)
        } else {
            next = PeriodicSchedule(from: WallTime(sinceEpoch: .zero), by: PanelTime.halfSecond).next(after: wallTime)
        }
        let face = Face(time: PanelText(text), round: PanelText("    "), phase: PanelText(label(program.label)))
        return (face, next ?? wallTime.advanced(by: .seconds(60)))
    }

    /// `rr.tt`: round right-aligned in two digits (`--` during prep), the point of the
    /// second digit lit, the number of rounds right-aligned in the last two. Blank for
    /// single-round programs. A 2-digit round panel (`digits` < 4) shows `rr` alone.
    public static func roundText(round: Int, of rounds: Int, digits: Int = 4) -> String {
        guard rounds > 1 else { return digits < 4 ? "  " : "    " }
        func two(_ n: Int) -> String { n < 10 ? " \(n)" : "\(min(n, 99))" }
        let current = round == 0 ? "--" : two(round)
        return digits < 4 ? current : current + "." + two(rounds)
    }

    /// `S-RR` in a program with sets: the set in the first digit, a dash, the round within
    /// the set in the last two (` 1-01`... is written `1-01`: set 1, round 1); `----` during prep.
    public static func setRoundText(set: Int, round: Int) -> String {
        guard set > 0 else { return "----" }
        let r = min(round, 99)
        return "\(min(set, 9))-" + (r < 10 ? "0\(r)" : "\(r)")
    }

    /// Rounds counted with MODE (AMRAP), right-aligned: `   3`, up to `9999`.
    public static func countText(_ count: Int) -> String {
        let digits = String(min(count, 9999))
        return String(repeating: " ", count: 4 - digits.count) + digits
    }

    /// A label padded or cut to the four positions of the phase panel, left-aligned.
    public static func label(_ text: String) -> String {
        let cut = String(text.uppercased().prefix(4))
        return cut + String(repeating: " ", count: 4 - cut.count)
    }
}

extension PhaseKind {
    /// The phase panel's text: the raw value in capitals, as literals (no Unicode case
    /// mapping on every face).
    var panelText: String {
        switch self {
        case .prep: "PREP"
        case .work: "WORK"
        case .rest: "REST"
        }
    }
}
