#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The system's files a card's settings go to, under `root` (`/` on the Pi; a directory in
/// tests). Each is replaced atomically and durably: a power cut leaves the old or the new.
public struct SystemFiles: Sendable {
    public var root: String

    public init(root: String = "/") {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// The directory `path` is in: `.` for a bare name.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `root` joined with an absolute path.
    public func path(_ absolute: String) -> String { root + absolute }

    /// Whether the files are the running system's own (`root` is `/`): then live changes
    /// (sethostname(2)) are made too.
    public var isLiveSystem: Bool { root.isEmpty }

    public func read(_ absolute: String, limit: Int = 64 * 1024) -> String? {
        try? SmallFiles.readText(path(absolute), limit: limit)
    }

    /// Writes `text` to `absolute` (its directory made), mode `permissions`.
    public func write(_ text: String, to absolute: String, permissions: mode_t = 0o644) throws(SystemError) {
        let target = path(absolute)
        let directory = Self.directory(of: target)
        try DurableFiles.prepareDirectory(directory)
        try DurableFiles.writeAtomically(text, path: target, temp: target + ".roundclock-new", directory: directory,
                                         permissions: permissions)
    }

    /// Makes `absolute` a symbolic link to `destination`, replacing what is there.
    public func link(_ absolute: String, to destination: String) throws(SystemError) {
        let target = path(absolute)
        let temp = target + ".roundclock-new"
        let directory = Self.directory(of: target)
        unlink(temp)
        try SystemError.check(temp, "symlink", .operationFirst) { symlink(destination, temp) }
        try DurableFiles.rename(temp, to: target)
        try DurableFiles.syncDirectory(directory)
    }

    /// Whether `absolute`, under `root`, is a regular file (following links).
    public func isFile(_ absolute: String) -> Bool { Self.isRegularFile(path(absolute)) }

    /// Whether `path` is a regular file, following links unless `followingLinks` is false.
    public static func isRegularFile(_ path: String, followingLinks: Bool = true) -> Bool {
        var info = stat()
        let found = followingLinks ? stat(path, &info) : lstat(path, &info)
        return found == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Sets the host name: /etc/hostname, the 127.0.1.1 line of /etc/hosts (Debian's place
    /// for the own name) and, on the live system, the kernel's.
    public func setHostname(_ name: String) throws(SystemError) {
        try write(name + "\n", to: "/etc/hostname")
        let hosts = read("/etc/hosts") ?? "127.0.0.1\tlocalhost\n"
        var lines = hosts.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let own = "127.0.1.1\t\(name)"
        if let index = lines.firstIndex(where: { $0.hasPrefix("127.0.1.1") }) { lines[index] = own } else { lines.append(own) }
        try write(lines.joined(separator: "\n") + "\n", to: "/etc/hosts")
        if isLiveSystem {
            try SystemError.check(name, "sethostname", .operationFirst) { sethostname(name, name.utf8.count) }
        }
    }

    /// Sets the time zone: /etc/localtime links to its zoneinfo file, /etc/timezone names it.
    public func setTimezone(_ zone: String) throws(SystemError) {
        try link("/etc/localtime", to: "/usr/share/zoneinfo/\(zone)")
        try write(zone + "\n", to: "/etc/timezone")
    }

    /// The Pi's own suffix for a unique default name: the last four hex digits of its
    /// serial number (device tree), else of the machine ID.
    public func uniqueSuffix(serialFile: String) -> String? {
        let sources = [(try? SmallFiles.readText(serialFile, limit: 256)), read("/etc/machine-id", limit: 256)]
        for case let text? in sources {
            let hex = text.lowercased().filter { $0.isHexDigit }
            if hex.count >= 4, hex.contains(where: { $0 != "0" }) { return String(hex.suffix(4)) }
        }
        return nil
    }
}
