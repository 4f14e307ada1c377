import ArgumentParser
import RoundClockCore

/// Options `simulate` and `run` share, checked the same way.
struct SessionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A preset (\((Presets.names + Presets.moreNames).joined(separator: ", "))) or a custom line like \"10 x 0:45/0:15, prep 0:10, warn 0:05\". For run, a config file's program comes first unless this is given."))
    var program: String = "boxing"

    @Option(help: "Stop after this much time since the start: M:SS, H:MM:SS or seconds, at most 366 days.")
    var until: String?

    @Option(help: "Scripted button presses: comma-separated T:BUTTON[:HOLD], T and HOLD in seconds, BUTTON start, stop or mode.")
    var events: String?

    @Option(help: "Write every panel change and buzzer signal as JSON Lines to this file.")
    var frames: String?

    /// The program, the stop time and the scripted presses, or a usage error naming the bad token.
    func parsed() throws -> (program: Program, until: Duration?, presses: [ScriptedPress]) {
        let chosen: Program
        do { chosen = try ProgramSpec.parse(program) } catch { throw ValidationError(error.description) }
        let (stop, presses) = try parsedTimes()
        return (chosen, stop, presses)
    }

    /// The stop time and the scripted presses; the program is left to the caller (`run` resolves
    /// it against the config's own programs first).
    func parsedTimes() throws -> (until: Duration?, presses: [ScriptedPress]) {
        var stop: Duration?
        if let until {
            guard let d = TimeText.parse(until, atMost: TimeLimits.maximumRun) else {
                throw ValidationError("bad --until \"\(until)\": expected M:SS, H:MM:SS or seconds, at most \(TimeLimits.maximumRun.clockNotation) (366 days), e.g. 47:10 or 90")
            }
            stop = d
        }
        var presses: [ScriptedPress] = []
        if let events {
            do { presses = try ScriptedPress.parseList(events) } catch { throw ValidationError(error.description) }
        }
        return (stop, presses)
    }
}
