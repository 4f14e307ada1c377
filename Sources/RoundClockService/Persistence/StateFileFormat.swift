import RoundClockCore

/// The state file: UTF-8 text, a version line, then one `key=value` per line, written and
/// parsed by hand (no Foundation). Durations are whole nanoseconds. Example:
///
///     roundclock-state 1
///     program=boxing
///     state=running
///     elapsed_before_ns=0
///     boot_id=6f1c0d52-3f7a-4c55-9a4e-1b0e2f9d7c21
///     anchor_boottime_ns=123456789000
///     anchor_realtime_ns=1795000000000000000
///     saved_realtime_ns=1795000012000000000
///
/// `anchor_*` appear only for a running session; `class_slot_local_ns` (the last `start_at`
/// slot started, local wall time) only once a class started by itself. In `program`, `\` is written `\\` and a
/// line break `\n`. Every number is range-checked (`elapsed_before_ns` at most
/// `SavedSession.longestElapsed`, the instants within Int64 nanoseconds, the anchors signed):
/// a file out of range is corrupt, and set aside, never a trap.
public enum StateFileFormat {
    public static let magic = "roundclock-state"
    public static let version = 1

    public static func encode(_ saved: SavedSession) -> String {
        var lines = ["\(magic) \(version)",
                     "program=\(escape(saved.program))",
                     "state=\(saved.runState.rawValue)",
                     "elapsed_before_ns=\(saved.elapsedBefore.wholeNanoseconds)",
                     "boot_id=\(saved.bootID)"]
        if let anchor = saved.anchorBoottime { lines.append("anchor_boottime_ns=\(anchor.wholeNanoseconds)") }
        if let anchor = saved.anchorRealtime { lines.append("anchor_realtime_ns=\(anchor.wholeNanoseconds)") }
        lines.append("saved_realtime_ns=\(saved.savedRealtime.wholeNanoseconds)")
        if let slot = saved.classSlot { lines.append("class_slot_local_ns=\(slot.wholeNanoseconds)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses a state file strictly: any deviation is an error saying what is wrong.
    public static func decode(_ text: String) throws(StateFileError) -> SavedSession {
        guard text.hasSuffix("\n") else { throw .corrupt("truncated: no final line break") }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        let header = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard header.count == 2, header[0] == magic else { throw .foreign("first line is not \"\(magic) N\"") }
        guard header[1] == "\(version)" else { throw .foreign("version \(header[1]); this roundclock reads version \(version)") }
        var values: [String: String] = [:]
        let known = ["program", "state", "elapsed_before_ns", "boot_id", "anchor_boottime_ns", "anchor_realtime_ns", "saved_realtime_ns", "class_slot_local_ns"]
        for (index, line) in lines.dropFirst().enumerated() {
            guard let eq = line.firstIndex(of: "=") else { throw .corrupt("line \(index + 2): no '='") }
            let key = String(line[..<eq])
            guard known.contains(key) else { throw .corrupt("line \(index + 2): unknown key \"\(key)\"") }
            guard values[key] == nil else { throw .corrupt("line \(index + 2): \"\(key)\" appears twice") }
            values[key] = String(line[line.index(after: eq)...])
        }
        func required(_ key: String) throws(StateFileError) -> String {
            guard let v = values[key] else { throw .corrupt("\"\(key)\" is missing") }
            return v
        }
        /// Nanoseconds: ASCII digits only, at most `limit`; with `signed`, also a leading `-`
        /// (an anchor before the clock's zero: after a resume by wall time the round began
        /// before this boot, so its CLOCK_BOOTTIME anchor is negative; a clock near 1970
        /// gives a negative CLOCK_REALTIME one).
        func duration(_ key: String, atMost limit: Duration = .nanoseconds(Int64.max), signed: Bool = false) throws(StateFileError) -> Duration? {
            guard let v = values[key] else { return nil }
            let negative = signed && v.hasPrefix("-")
            let bound = limit.wholeNanoseconds
            guard let magnitude = WholeNumber.parse(negative ? v.dropFirst() : Substring(v), atMost: Int64.max) else {
                throw .corrupt("\"\(key)\" is \"\(v)\"; expected nanoseconds, a whole number from \(signed ? "-\(bound)" : "0") to \(bound)")
            }
            guard magnitude <= bound else {
                throw .corrupt("\"\(key)\" is \(v) ns, longer than a session can be (\(bound) ns)")
            }
            return .nanoseconds(negative ? -magnitude : magnitude)
        }
        let program = try unescape(try required("program"))
        guard !program.isEmpty else { throw .corrupt("\"program\" is empty") }
        let stateText = try required("state")
        guard let state = SavedSession.RunState(rawValue: stateText) else { throw .corrupt("\"state\" is \"\(stateText)\"; expected ready, running or paused") }
        let bootID = try required("boot_id")
        guard !bootID.isEmpty, bootID.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "-") }) else { throw .corrupt("\"boot_id\" is \"\(bootID)\"") }
        guard let elapsed = try duration("elapsed_before_ns", atMost: SavedSession.longestElapsed) else { throw .corrupt("\"elapsed_before_ns\" is missing") }
        guard let saved = try duration("saved_realtime_ns") else { throw .corrupt("\"saved_realtime_ns\" is missing") }
        let anchorBoot = try duration("anchor_boottime_ns", signed: true)
        let anchorReal = try duration("anchor_realtime_ns", signed: true)
        switch state {
        case .running:
            guard anchorBoot != nil, anchorReal != nil else { throw .corrupt("a running session needs anchor_boottime_ns and anchor_realtime_ns") }
        case .ready, .paused:
            guard anchorBoot == nil, anchorReal == nil else { throw .corrupt("a \(state.rawValue) session has no anchor") }
            guard (state == .ready) == (elapsed == .zero) else { throw .corrupt("state \(state.rawValue) with elapsed_before_ns \(elapsed.wholeNanoseconds)") }
        }
        var session = SavedSession(program: program, runState: state, elapsedBefore: elapsed, bootID: bootID,
                                   anchorBoottime: anchorBoot, anchorRealtime: anchorReal, savedRealtime: saved)
        session.classSlot = try duration("class_slot_local_ns", signed: true)
        return session
    }

    /// Checks that a decoded session's anchor is one a clock can have written (`decode` checks
    /// each number on its own): both clocks are read together at the save, so
    /// `saved_realtime_ns − anchor_realtime_ns` is the time since the anchor then. It is at
    /// most `SessionAdoption.latestAnchorAhead` negative (an adopted group start), with
    /// `elapsed_before_ns` within `SavedSession.longestElapsed`, and CLOCK_BOOTTIME at the save
    /// (`anchor_boottime_ns` plus that time) is not negative. Anything else is corrupt and set
    /// aside, never resumed as a round long over.
    public static func checkAnchor(_ session: SavedSession) throws(StateFileError) {
        guard let boottime = session.anchorBoottime, let realtime = session.anchorRealtime else { return }
        let since = session.savedRealtime - realtime
        guard since >= .zero - SessionAdoption.latestAnchorAhead else {
            throw .corrupt("the anchor lies \((.zero - since).wholeNanoseconds) ns after the save; at most \(SessionAdoption.latestAnchorAhead.wholeNanoseconds) ns can be")
        }
        guard since + session.elapsedBefore <= SavedSession.longestElapsed else {
            throw .corrupt("the anchor lies \(since.wholeNanoseconds) ns before the save, longer than a session can run")
        }
        guard boottime + since >= .zero else {
            throw .corrupt("anchor_boottime_ns is \(boottime.wholeNanoseconds): CLOCK_BOOTTIME at the save would be negative")
        }
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(c)
            }
        }
        return out
    }

    static func unescape(_ s: String) throws(StateFileError) -> String {
        var out = ""
        var iterator = s.makeIterator()
        while let c = iterator.next() {
            guard c == "\\" else { out.append(c); continue }
            switch iterator.next() {
            case "\\": out += "\\"
            case "n": out += "\n"
            case "r": out += "\r"
            default: throw .corrupt("bad escape in \"program\"")
            }
        }
        return out
    }
}

/// Why a state file cannot be used; the file is then set aside, never fatal.
public enum StateFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Damaged: truncated, malformed, inconsistent.
    case corrupt(String)
    /// Not ours, or another version.
    case foreign(String)
    /// Well-formed, but names a program this configuration does not know.
    case unknownProgram(String)
    /// Could not be read as a small text file: not a regular file, too large, not UTF-8, an
    /// I/O error.
    case unreadable(String)

    public var description: String {
        switch self {
        case .corrupt(let why): "corrupt (\(why))"
        case .foreign(let why): "foreign (\(why))"
        case .unknownProgram(let name): "names an unknown program \"\(name)\""
        case .unreadable(let why): "unreadable (\(why))"
        }
    }
}
