import ClockLink
import ControlProtocol
import JSON
import RoundClockConfig
import RoundClockCore

/// What the TV page (`/display`) is sent: the anchor, not the ticks. From the clock's state
/// lines (one a second, two in clock mode) it makes a message only when what the page counts
/// from changes: the session (program, run, time before the last pause, the anchor), the
/// state (a finish), the time zone's offset, or a panel the page does not compute (all of
/// them while ready or paused; a counted round of an AMRAP). The page computes each second
/// from the plan, the session and its measured offset from the gateway's clock. The plan is
/// of the program the clock says it runs (`RunningProgram`), never of a name looked up here.
public struct DisplayFeed: Sendable {
    /// Seconds east of UTC of the local time at a CLOCK_REALTIME instant (nanoseconds).
    let utcOffset: @Sendable (Int64) -> Int
    let cadence: Cadence
    let colors: RemoteSettings.DisplayColors
    /// The last message's comparison key, the program the clock runs, and the plan of the
    /// definition it last sent, kept so a state line of the same program does not build it again.
    private var lastKey: JSONValue?
    private var running = RunningProgram()
    private var plan: (changes: Int, json: JSONValue)?

    public init(utcOffset: @escaping @Sendable (Int64) -> Int, cadence: Cadence = .seconds,
                colors: RemoteSettings.DisplayColors = .init()) {
        self.utcOffset = utcOffset
        self.cadence = cadence
        self.colors = colors
    }

    /// Sent while the clock cannot be reached: the page keeps counting and marks it.
    public static let unreachableMessage = #"{"display": "unreachable"}"#

    /// The message for the page after `line` (a state line or the gateway's unreachable
    /// line), or `nil` when it would tell the page nothing new.
    public mutating func message(after line: String, realtimeNow: Int64) -> String? {
        let state = ControlState.parse(line)
        let program = running.update(state)
        guard let state else {
            let key = JSONValue.string("unreachable")
            guard key != lastKey else { return nil }
            lastKey = key
            return Self.unreachableMessage
        }
        var programJSON = JSONValue.null
        if let program { programJSON = planJSON(program) }
        // The page counts by itself only from a plan; a program the clock did not define (an
        // older clock) is mirrored panel by panel instead.
        let counting = programJSON != .null && (state.state == "running" || state.state == "clock")
        let countsRounds = programJSON["counts_rounds"] == .bool(true)
        let panels = state.panels.filter { panel in
            !counting || (panel.role == "round" && countsRounds && state.state == "running")
        }
        let session = state.session.map { $0.json(withAdopted: false) } ?? .null
        let offset = JSONValue.int(utcOffset(realtimeNow))
        let definition = JSONValue.int(program == nil ? 0 : running.changes)
        let key = JSONValue.array([.string(state.state), .string(state.program), definition, session, offset,
                                   .array(panels.map { .string($0.role + "=" + $0.text) })])
        guard key != lastKey else { return nil }
        lastKey = key
        return JSONValue.object([
            JSONMember("display", .string("session")),
            JSONMember("state", .string(state.state)),
            JSONMember("program", .string(state.program)),
            JSONMember("session", session),
            JSONMember("panels", .object(state.panels.map { JSONMember($0.role, .string($0.text)) })),
            JSONMember("utc_offset_s", offset),
            JSONMember("colors", .object([JSONMember("work", .string(colors.work)), JSONMember("rest", .string(colors.rest)),
                                          JSONMember("warning", .string(colors.warning))])),
            JSONMember("plan", programJSON),
        ]).encoded
    }

    private mutating func planJSON(_ program: Program) -> JSONValue {
        if let plan, plan.changes == running.changes { return plan.json }
        let json = DisplayPlan.json(program, cadence: cadence)
        plan = (running.changes, json)
        return json
    }
}
