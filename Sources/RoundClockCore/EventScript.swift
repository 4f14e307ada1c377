/// A scripted button press: `T:BUTTON[:HOLD]`, pressed `at` after the simulation
/// started and held for `hold` (default 0.1 s). T and HOLD are decimal seconds
/// (`TimeText.seconds`): T at most `TimeLimits.maximumRun`, and a given HOLD ends by then.
public struct ScriptedPress: Sendable, Hashable {
    public var at: Duration
    public var button: Button
    public var hold: Duration

    public static let defaultHold = Duration.milliseconds(100)

    /// Parses a comma-separated list such as `30:stop,40:start,60:stop:2.5`.
    public static func parseList(_ list: String) throws(EventScriptError) -> [ScriptedPress] {
        var presses: [ScriptedPress] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmed) {
            let fields = item.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2 || fields.count == 3 else {
                throw EventScriptError(item: item, token: item, expected: "T:BUTTON or T:BUTTON:HOLD, e.g. 30:stop or 60:stop:2.5")
            }
            let latest = TimeLimits.maximumRun
            guard let at = TimeText.seconds(fields[0], atMost: latest) else {
                throw EventScriptError(item: item, token: fields[0], expected: "seconds since the start, at most \(latest.floorSeconds), e.g. 30 or 12.5")
            }
            guard let button = Button(rawValue: fields[1].lowercased()) else {
                throw EventScriptError(item: item, token: fields[1], expected: "a button: start, stop or mode")
            }
            var hold = defaultHold
            if fields.count == 3 {
                guard let h = TimeText.seconds(fields[2], atMost: latest - at), h > .zero else {
                    throw EventScriptError(item: item, token: fields[2],
                                           expected: "a hold time in seconds greater than 0, ending by \(latest.floorSeconds) s after the start, e.g. 2.5")
                }
                hold = h
            }
            presses.append(ScriptedPress(at: at, button: button, hold: hold))
        }
        return presses
    }

    /// The press and release edges on a clock whose simulation started at `start`.
    public func edges<Instant: InstantProtocol & Sendable>(from start: Instant) -> [ButtonEvent<Instant>] where Instant.Duration == Duration {
        [ButtonEvent(button, .press, at: start.advanced(by: at)),
         ButtonEvent(button, .release, at: start.advanced(by: at + hold))]
    }
}

public struct EventScriptError: Error, Sendable, Hashable, CustomStringConvertible {
    public var item: String
    public var token: String
    public var expected: String
    public var description: String { "bad event \"\(item)\": \"\(token)\" — expected \(expected)" }
}
