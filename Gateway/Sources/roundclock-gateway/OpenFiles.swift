#if canImport(Glibc)
import Glibc
#endif

/// The open-file limit (`LimitNOFILE=` under systemd) against the connection cap: each
/// connection is a file, and the gateway needs a few more (the listening socket, the clock's
/// socket, MQTT, epoll and its wake-ups, the page's files at start).
enum OpenFiles {
    static let reserve = 64

    /// Why `connections` cannot all be open at once, or `nil`. Raises the soft limit up to
    /// the hard one when that is enough (the unit's `SystemCallFilter` forbids it: there the
    /// unit's own `LimitNOFILE=` must already be enough).
    static func problem(connections: Int) -> String? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let needed = rlim_t(connections + reserve)
        if limit.rlim_cur >= needed { return nil }
        if limit.rlim_max >= needed {
            var raised = limit
            raised.rlim_cur = needed
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { return nil }
        }
        return "--max-connections \(connections) needs \(needed) open files, and the limit is \(limit.rlim_cur) "
            + "(hard \(limit.rlim_max)); lower --max-connections or raise LimitNOFILE="
    }
}
