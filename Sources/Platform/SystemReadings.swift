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
