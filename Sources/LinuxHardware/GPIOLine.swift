import CLinuxHardware
import Platform
import RoundClockCore
#if canImport(Glibc)
import Glibc
#endif

/// Where a GPIO line is: a chip device and an offset on it.
public struct GPIOLocation: Sendable, Hashable, CustomStringConvertible {
    public var chip: String
    public var offset: UInt32
    public var description: String { "\(chip):\(offset)" }
}

/// Finds lines by name (`GPIO17`) across all chips, or by `chip:offset`
/// (`gpiochip0:17`, `/dev/gpiochip4:17`) as a fallback. By name is preferred: the Pi 5
/// moved its header lines between gpiochip4 and gpiochip0 across kernels.
public enum GPIOLines {
    public static func chips() -> [String] { deviceNodes(prefix: "gpiochip").map(\.path) }

    public static func locate(_ spec: String) throws(SystemError) -> GPIOLocation {
        let parts = spec.split(separator: ":")
        if parts.count == 2, let offset = WholeNumber.parse(parts[1], atMost: Int64(UInt32.max)).map(UInt32.init) {
            let chip = parts[0].hasPrefix("/") ? String(parts[0]) : "/dev/\(parts[0])"
            return GPIOLocation(chip: chip, offset: offset)
        }
        for chip in chips() {
            let offset = rc_gpio_find_on_chip(chip, spec)
            if offset >= 0 { return GPIOLocation(chip: chip, offset: UInt32(offset)) }
        }
        throw SystemError(device: "GPIO line \"\(spec)\"", operation: "find by name on \(chips().count) chips", errno: ENOENT)
    }

    /// The libgpiod API this binary was built against (1 or 2).
    public static var apiVersion: Int { Int(rc_gpio_api_version()) }
}

/// Line bias, as in the board file.
public enum GPIOBias: String, Sendable {
    case asIs = "as-is", disabled, pullUp = "pull-up", pullDown = "pull-down"
    var shim: Int32 {
        switch self {
        case .asIs: Int32(RC_BIAS_AS_IS.rawValue)
        case .disabled: Int32(RC_BIAS_DISABLED.rawValue)
        case .pullUp: Int32(RC_BIAS_PULL_UP.rawValue)
        case .pullDown: Int32(RC_BIAS_PULL_DOWN.rawValue)
        }
    }
}

/// A requested line, released on deinit. Not thread-safe: one owner at a time.
final class RequestedLine {
    let location: GPIOLocation
    let handle: UnsafeMutablePointer<rc_gpio_line>

    private init(location: GPIOLocation, handle: UnsafeMutablePointer<rc_gpio_line>) {
        self.location = location
        self.handle = handle
    }

    deinit { rc_gpio_release(handle) }

    /// Input with both-edge events (kernel timestamps), bias and active-low.
    static func input(_ location: GPIOLocation, consumer: String, activeLow: Bool, bias: GPIOBias,
                      debounceMicroseconds: UInt32) throws(SystemError) -> RequestedLine {
        guard let handle = rc_gpio_request_input(location.chip, location.offset, consumer, activeLow ? 1 : 0, bias.shim, debounceMicroseconds) else {
            throw SystemError(device: "\(location)", operation: "request input with edge events", errno: errno)
        }
        return RequestedLine(location: location, handle: handle)
    }

    /// Output, driven to `initial`.
    static func output(_ location: GPIOLocation, consumer: String, activeLow: Bool, initial: Bool) throws(SystemError) -> RequestedLine {
        guard let handle = rc_gpio_request_output(location.chip, location.offset, consumer, activeLow ? 1 : 0, initial ? 1 : 0) else {
            throw SystemError(device: "\(location)", operation: "request output", errno: errno)
        }
        return RequestedLine(location: location, handle: handle)
    }

    var eventFD: Int32 { rc_gpio_event_fd(handle) }

    func readEvent() throws(SystemError) -> (active: Bool, timestampNanoseconds: UInt64) {
        var active: Int32 = 0
        var timestamp: UInt64 = 0
        let r = retryingEINTR { rc_gpio_read_event(handle, &active, &timestamp) }
        guard r.result >= 0 else { throw SystemError(device: "\(location)", operation: "read edge event", errno: r.errno) }
        return (active != 0, timestamp)
    }

    func value() throws(SystemError) -> Bool {
        let v = rc_gpio_get_value(handle)
        guard v >= 0 else { throw SystemError(device: "\(location)", operation: "get value", errno: errno) }
        return v != 0
    }

    func set(_ on: Bool) throws(SystemError) {
        let r = retryingEINTR { rc_gpio_set_value(handle, on ? 1 : 0) }
        guard r.result >= 0 else { throw SystemError(device: "\(location)", operation: "set value", errno: r.errno) }
    }
}

/// Facts about chips and lines for `roundclock probe`.
public enum GPIOInfo {
    public struct Chip: Sendable { public var path, name, label: String; public var lines: Int }
    public struct Line: Sendable { public var name, consumer: String; public var used, output: Bool }

    public static func chip(_ path: String) throws(SystemError) -> Chip {
        var name = [CChar](repeating: 0, count: 64), label = [CChar](repeating: 0, count: 64)
        var lines: UInt32 = 0
        guard rc_gpio_chip_info(path, &name, 64, &label, 64, &lines) == 0 else {
            throw SystemError(device: path, operation: "open chip", errno: errno)
        }
        return Chip(path: path, name: cString(name), label: cString(label), lines: Int(lines))
    }

    public static func line(_ location: GPIOLocation) throws(SystemError) -> Line {
        var name = [CChar](repeating: 0, count: 64), consumer = [CChar](repeating: 0, count: 64)
        var used: Int32 = 0, output: Int32 = 0
        guard rc_gpio_line_info(location.chip, location.offset, &name, 64, &consumer, 64, &used, &output) == 0 else {
            throw SystemError(device: "\(location)", operation: "line info", errno: errno)
        }
        return Line(name: cString(name), consumer: cString(consumer), used: used != 0, output: output != 0)
    }
}

/// CLOCK_MONOTONIC now: the clock of GPIO event timestamps.
public func monotonicNanoseconds() -> UInt64 { rc_monotonic_ns() }

/// A GPIO event timestamp (CLOCK_MONOTONIC nanoseconds, from the kernel) as an instant of
/// the loop's `MonotonicClock`: the same clock, so the stamp is the instant. A stamp from
/// the future or over 10 s old is not CLOCK_MONOTONIC (the v1 uAPI of kernels before 5.7
/// stamps CLOCK_REALTIME) and is not trusted: the event is placed at now.
public func monotonicInstant(ofKernelNanoseconds timestamp: UInt64,
                             now: MonotonicClock.Instant = MonotonicClock().now) -> MonotonicClock.Instant {
    let stamp = MonotonicClock.Instant(nanoseconds: timestamp)
    guard stamp <= now, stamp.duration(to: now) < .seconds(10) else { return now }
    return stamp
}

/// A NUL-terminated C buffer as a String.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
