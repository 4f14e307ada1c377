import CEventLoop
#if canImport(Glibc)
import Glibc
#endif

/// The system facts persistence needs: this boot's id and the two clocks the anchor is
/// mapped onto. Injected, so tests can play any boot and any time.
public struct SystemReadings: Sendable {
    public var bootID: String
    /// CLOCK_BOOTTIME (monotonic, counts suspend; `ContinuousClock` on Linux).
    public var boottime: @Sendable () -> Duration
    /// CLOCK_REALTIME since the Unix epoch.
    public var realtime: @Sendable () -> Duration
    public var clockSynchronized: @Sendable () -> Bool

    public init(bootID: String, boottime: @escaping @Sendable () -> Duration, realtime: @escaping @Sendable () -> Duration,
                clockSynchronized: @escaping @Sendable () -> Bool) {
        self.bootID = bootID
        self.boottime = boottime
        self.realtime = realtime
        self.clockSynchronized = clockSynchronized
    }

    /// The real system: boot id from `/proc/sys/kernel/random/boot_id`, `clock_gettime(2)`
    /// with CLOCK_BOOTTIME and CLOCK_REALTIME, and `ClockSync.isSynchronized()`.
    public static func system() throws(SystemError) -> SystemReadings {
        SystemReadings(bootID: try readBootID(), boottime: { clockReading(CLOCK_BOOTTIME) },
                       realtime: { clockReading(CLOCK_REALTIME) }, clockSynchronized: { ClockSync.isSynchronized() })
    }

    public static let bootIDPath = "/proc/sys/kernel/random/boot_id"

    /// The kernel's random id of this boot (a UUID, new at every boot).
    public static func readBootID(path: String = bootIDPath) throws(SystemError) -> String {
        let text = try SmallFiles.readText(path)
        let id = text.filter { !$0.isWhitespace }
        guard !id.isEmpty else { throw SystemError(operation: "read boot id", path: path, errno: EINVAL) }
        return id
    }

    /// These readings with CLOCK_BOOTTIME and CLOCK_REALTIME moving with `clock` instead
    /// of the system (a run in virtual time): each is read once now, at `start`, then
    /// advanced by the time `clock` has moved since. Saved anchors then stay consistent
    /// with the session's instants. Boot id and clock synchronization stay as they are.
    public func advancing<C: Clock & Sendable>(with clock: C, from start: C.Instant) -> SystemReadings
    where C.Duration == Duration, C.Instant: Sendable {
        let boot = boottime(), real = realtime()
        return SystemReadings(bootID: bootID, boottime: { boot + start.duration(to: clock.now) },
                              realtime: { real + start.duration(to: clock.now) }, clockSynchronized: clockSynchronized)
    }

    /// `clock_gettime(2)` as a Duration since the clock's epoch.
    public static func clockReading(_ clock: clockid_t) -> Duration {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return .seconds(Int64(ts.tv_sec)) + .nanoseconds(Int64(ts.tv_nsec))
    }
}

/// Whether the system clock is synchronized, for resuming by wall time after a reboot.
///
/// Chosen check: the flag file `/run/systemd/timesync/synchronized`, which
/// systemd-timesyncd (the default on Debian and Raspberry Pi OS) creates once it has
/// synchronized the clock in this boot (it is on tmpfs, so a reboot clears it).
/// Not `adjtimex(2)` (STA_UNSYNC / TIME_ERROR): that syscall is in the `@clock` seccomp
/// group, which `ProtectClock=yes` and `SystemCallFilter=@system-service` deny. With
/// chrony or ntpd the flag never appears, so a running round is not resumed after a
/// reboot (a paused one still is).
public enum ClockSync {
    public static let timesyncFlag = "/run/systemd/timesync/synchronized"

    public static func isSynchronized(flag: String = timesyncFlag) -> Bool {
        access(flag, F_OK) == 0
    }
}

/// What the kernel and systemd-timesyncd say about the wall clock, for the log line of each
/// `adopt` (clocks in sync are only as close as their wall clocks).
public struct ClockSyncState: Sendable, Hashable, CustomStringConvertible {
    /// `ClockSync.timesyncFlag` exists.
    public var timesyncFlag: Bool
    /// adjtimex(2) read-only (`modes` 0): `STA_UNSYNC` clear and the state not `TIME_ERROR`;
    /// `nil` when the call is refused (the unit's `ProtectClock=yes` denies the `@clock`
    /// system calls with EPERM).
    public var kernelSynchronized: Bool?
    /// adjtimex(2)'s `maxerror` (microseconds in `struct timex`): the kernel's bound on the
    /// wall clock's error, grown by 500 ppm a second since the NTP daemon last set it.
    public var maxError: Duration?

    public init(timesyncFlag: Bool, kernelSynchronized: Bool?, maxError: Duration?) {
        self.timesyncFlag = timesyncFlag
        self.kernelSynchronized = kernelSynchronized
        self.maxError = maxError
    }

    public var synchronized: Bool { timesyncFlag || kernelSynchronized == true }

    public var description: String {
        var text = synchronized ? "wall clock synchronized" : "wall clock NOT synchronized"
        if let maxError {
            let micros = maxError.wholeMicroseconds
            text += ", max error \(micros / 1000).\(String(1000 + micros % 1000).dropFirst()) ms"
        } else {
            text += ", max error unknown (adjtimex(2) refused)"
        }
        return text
    }
}

extension ClockSync {
    /// The wall clock's sync state now: the timesyncd flag and a read-only adjtimex(2).
    public static func state(flag: String = timesyncFlag) -> ClockSyncState {
        let flagged = isSynchronized(flag: flag)
        guard let kernel = kernelState() else { return ClockSyncState(timesyncFlag: flagged, kernelSynchronized: nil, maxError: nil) }
        return ClockSyncState(timesyncFlag: flagged, kernelSynchronized: kernel.synchronized, maxError: kernel.maxError)
    }

    /// adjtimex(2) with `modes` 0 (reads only), through `rc_adjtimex_read`: synchronized when
    /// `STA_UNSYNC` is clear in `status` and the state is not `TIME_ERROR`; `maxerror` is in
    /// microseconds. `nil` when the call fails.
    static func kernelState() -> (synchronized: Bool, maxError: Duration)? {
        var reading = timex()
        let state = rc_adjtimex_read(&reading)
        guard state >= 0 else { return nil }
        let synchronized = reading.status & Int32(STA_UNSYNC) == 0 && state != TIME_ERROR
        return (synchronized, .microseconds(Int64(reading.maxerror)))
    }
}

extension Duration {
    /// Whole microseconds, truncated towards zero (from `components`: durations here are
    /// clock errors, far inside `Int64` seconds).
    var wholeMicroseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}
