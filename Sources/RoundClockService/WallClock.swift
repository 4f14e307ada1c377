#if canImport(Glibc)
import Glibc
#endif
import RoundClockCore

/// Reads the local wall time from the system (CLOCK_REALTIME and the time zone via
/// `localtime_r`). Only clock mode uses it; countdowns never look at wall time.
public enum SystemWallClock {
    public static func now() -> WallTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var seconds = ts.tv_sec
        var local = tm()
        localtime_r(&seconds, &local)
        return WallTime(sinceEpoch: .seconds(Int64(ts.tv_sec) + Int64(local.tm_gmtoff)) + .nanoseconds(Int64(ts.tv_nsec)))
    }
}
