#if canImport(Glibc)
import Glibc
#endif
import Platform
import RoundClockService

/// Process and machine facts read from the kernel: CPU time and peak RSS (getrusage),
/// load average, CPU model, kernel release.
public enum SystemInfo {
    /// User + system CPU time of the whole process so far (getrusage RUSAGE_SELF).
    public static func cpuTime() -> Duration {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func d(_ t: timeval) -> Duration { .seconds(Int64(t.tv_sec)) + .microseconds(Int64(t.tv_usec)) }
        return d(usage.ru_utime) + d(usage.ru_stime)
    }

    /// Peak resident set size of the process in KiB (getrusage `ru_maxrss`).
    public static func maxRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }

    /// Voluntary and involuntary context switches of the process (getrusage).
    public static func contextSwitches() -> (voluntary: Int, involuntary: Int) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return (Int(usage.ru_nvcsw), Int(usage.ru_nivcsw))
    }

    /// The first three fields of /proc/loadavg.
    public static func loadAverage() -> String {
        (readText("/proc/loadavg") ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    public static func processorCount() -> Int { sysconf(Int32(_SC_NPROCESSORS_ONLN)) }

    /// "model name" (x86) or "Model"/"Hardware" (ARM) from /proc/cpuinfo.
    public static func cpuModel() -> String {
        let lines = (readText("/proc/cpuinfo") ?? "").split(separator: "\n")
        for key in ["model name", "Model", "Hardware"] {
            if let line = lines.first(where: { $0.hasPrefix(key) }), let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmed
            }
        }
        return "unknown"
    }

    /// `sysname release machine` from uname(2).
    public static func kernel() -> String {
        var u = utsname()
        uname(&u)
        func s<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return "\(s(u.sysname)) \(s(u.release)) \(s(u.machine))"
    }

    /// One line describing the machine and its current load.
    public static func machineLine() -> String {
        "machine: \(processorCount()) CPUs, \(cpuModel()), \(kernel()); loadavg \(loadAverage())"
    }

    /// A whole (small) regular file as text, or nil if it cannot be read or is over 1 MiB
    /// (procfs files are regular files).
    public static func readText(_ path: String) -> String? {
        (try? SmallFiles.read(path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Thread ids of this process (/proc/self/task).
    static func threadIDs() -> [Int32] {
        guard let dir = opendir("/proc/self/task") else { return [] }
        defer { closedir(dir) }
        var ids: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let id = Int32(name) { ids.append(id) }
        }
        return ids
    }
}
