import ClockLink
#if canImport(Glibc)
import Glibc
#endif
import Platform
import ServiceLifecycle

/// Feeds the TV pages: reads the clock's state lines from the link and publishes a
/// `DisplayFeed` message to `hub` only when one says something new; the hub gives each new
/// page the latest message at once. Stops at graceful shutdown.
struct DisplayService: Service {
    let link: ClockLink
    var feed: DisplayFeed
    let hub: LiveHub

    func run() async throws {
        await cancelWhenGracefulShutdown { await feedPages() }
    }

    private func feedPages() async {
        var feed = feed
        for await line in link.hub.subscribe() {
            let now = SystemReadings.clockReading(CLOCK_REALTIME).wholeNanoseconds
            if let message = feed.message(after: line, realtimeNow: now) { hub.publish(message) }
        }
    }
}

/// The machine's local time zone, as the clock's clock mode reads it (`localtime_r`).
public enum LocalTime {
    /// Seconds east of UTC at `realtimeNanoseconds` since the Unix epoch.
    @Sendable public static func utcOffset(_ realtimeNanoseconds: Int64) -> Int {
        var seconds = time_t(realtimeNanoseconds / 1_000_000_000)
        var local = tm()
        guard localtime_r(&seconds, &local) != nil else { return 0 }
        return Int(local.tm_gmtoff)
    }
}
