import LinuxHardware
import Platform
import RoundClockCore
import RoundClockService
import Synchronization

/// Real button edges for `bench buttons --gpio-sim`: the kernel's gpio-sim module drives
/// the START and STOP lines (writing `pull-down` / `pull-up` to a line's sysfs `pull`
/// attribute, Documentation/admin-guide/gpio/gpio-sim.rst), and the real `ButtonReader`
/// reads them through libgpiod with the kernel's edge timestamps, exactly as `run` does.
/// The buttons are active-low with pull-up, as on the Pi boards: pull-down is a press.
public struct GPIOSimButtons: Sendable {
    /// The gpio-sim chip's sysfs directory, e.g. /sys/devices/platform/gpio-sim.0/gpiochip1.
    public var sysfs: String
    public var startOffset: UInt32
    public var stopOffset: UInt32

    public init(sysfs: String, startOffset: UInt32 = 17, stopOffset: UInt32 = 27) {
        self.sysfs = sysfs.hasSuffix("/") ? String(sysfs.dropLast()) : sysfs
        self.startOffset = startOffset
        self.stopOffset = stopOffset
    }

    /// The chip's /dev node: the sysfs directory's last component (gpiochipN).
    var chip: String { String(sysfs.split(separator: "/").last ?? "") }

    func offset(_ button: Button) -> UInt32 { button == .stop ? stopOffset : startOffset }

    /// Presses (pull-down) or releases (pull-up) a simulated button.
    func set(_ button: Button, pressed: Bool) throws(SystemError) {
        try writeSysfsAttribute("\(sysfs)/sim_gpio\(offset(button))/pull", pressed ? "pull-down" : "pull-up")
    }

    /// The reader of `run`, on the two lines; each delivered edge is recorded, then posted.
    func reader(clock: MonotonicClock, inbox: ButtonInbox<MonotonicClock.Instant>,
                edges: EdgeLog) throws(SystemError) -> ButtonReader {
        let buttons: [Button: String] = [.start: "\(chip):\(startOffset)", .stop: "\(chip):\(stopOffset)"]
        return try ButtonReader(buttons: buttons, activeLow: true, bias: .pullUp,
                                onFailure: { edges.record(failure: $0) }) { event in
            edges.record(KernelEdge(event: event, postedAt: clock.now))
            inbox.post(event)
        }
    }
}

/// One edge as the reader delivered it (its instant is the kernel's timestamp on the
/// loop's clock), and when the reader posted it into the inbox.
struct KernelEdge: Sendable {
    var event: ButtonEvent<MonotonicClock.Instant>
    var postedAt: MonotonicClock.Instant
}

/// The edges the reader delivered and its failures, shared between its thread and the benchmark.
final class EdgeLog: Sendable {
    private let edges = Mutex([KernelEdge]())
    private let failures = Mutex([ButtonFailure]())
    func record(_ edge: KernelEdge) { edges.withLock { $0.append(edge) } }
    func record(failure: ButtonFailure) { failures.withLock { $0.append(failure) } }
    /// The first failure the reader reported, if any.
    var firstFailure: ButtonFailure? { failures.withLock { $0.first } }
    /// The latest press of `button`.
    func lastPress(of button: Button) -> KernelEdge? { edges.withLock { $0.last { $0.event.button == button && $0.event.edge == .press } } }
}
