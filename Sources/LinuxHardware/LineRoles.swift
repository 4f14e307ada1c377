import Platform
/// An input line with edge events, as the button reader uses it. In production a
/// `RequestedLine` (libgpiod); in tests a pipe, so the reader can be driven and
/// broken on purpose. Touched only on the event loop's thread.
protocol InputLine: AnyObject, CustomStringConvertible {
    /// The fd poll(2) watches for edges (gpiod_line_event_get_fd /
    /// gpiod_line_request_get_fd): POLLIN when an edge is queued.
    var eventFD: Int32 { get }
    /// One queued edge: logical level after it and its CLOCK_MONOTONIC timestamp.
    func readEvent() throws(SystemError) -> (active: Bool, timestampNanoseconds: UInt64)
    /// The logical level now (gpiod_line_get_value / gpiod_line_request_get_value).
    func value() throws(SystemError) -> Bool
}

/// An output line, as the buzzer uses it: a `RequestedLine` (gpiod_line_set_value /
/// gpiod_line_request_set_value), or a recording fake in tests.
protocol OutputLine: AnyObject {
    /// Drives the line to its logical level `on` (active-low already applied).
    func set(_ on: Bool) throws(SystemError)
}

extension RequestedLine: InputLine, OutputLine {
    var description: String { "\(location)" }
}
