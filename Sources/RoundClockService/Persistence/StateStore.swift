#if canImport(Glibc)
import Glibc
#endif
import Platform
import RoundClockCore

/// The state file in the state directory (`$STATE_DIRECTORY`, `/var/lib/roundclock` under
/// systemd's `StateDirectory=roundclock`). One writer: the service.
public struct StateStore: Sendable {
    /// How a save reaches the disk: the text, the file's path, the temp path and the
    /// directory. `durable` is `DurableFiles.writeAtomically`; tests hand in a slow or failing one.
    public typealias DurableWrite = @Sendable (_ text: String, _ path: String, _ temp: String, _ directory: String) throws(SystemError) -> Void

    public let directory: String
    public static let fileName = "state"
    public var path: String { "\(directory)/\(Self.fileName)" }
    /// The temp file a write goes through; it never outlives a write.
    public var tempPath: String { "\(directory)/.\(Self.fileName).tmp" }
    private let write: DurableWrite

    /// Temp file, fsync, rename, fsync of the directory.
    public static let durable: DurableWrite = { text, path, temp, directory throws(SystemError) in
        try DurableFiles.writeAtomically(text, path: path, temp: temp, directory: directory)
    }

    public init(directory: String, write: @escaping DurableWrite = StateStore.durable) {
        var dir = directory
        while dir.count > 1, dir.hasSuffix("/") { dir.removeLast() }
        self.directory = dir
        self.write = write
    }

    /// The directory systemd gives the service (`$STATE_DIRECTORY`, first entry), else
    /// `/var/lib/roundclock`.
    public static func defaultDirectory() -> String {
        if let value = getenv("STATE_DIRECTORY"), let first = String(cString: value).split(separator: ":").first {
            return String(first)
        }
        return "/var/lib/roundclock"
    }

    /// Writes the session atomically (temp file, fsync, rename, fsync directory).
    public func save(_ saved: SavedSession) throws(SystemError) {
        try write(StateFileFormat.encode(saved), path, tempPath, directory)
    }

    /// The file's text, or `nil` when there is none (ENOENT; ENOTDIR: the directory is not
    /// one, so nothing is in it). Anything else that keeps it from being read — not a
    /// regular file (a FIFO, a directory, a symbolic link: it is opened `O_NONBLOCK |
    /// O_NOFOLLOW`, never blocking), over 64 KiB, not UTF-8, an I/O error — makes it
    /// unusable: the caller sets it aside.
    public func readText() throws(StateFileError) -> String? {
        do throws(SystemError) {
            return try SmallFiles.readText(path, followSymlinks: false)
        } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR, error.operation == "open" { return nil }
            throw .unreadable(error.reason ?? "\(error.operation): \(error.why)")
        }
    }

    /// Makes sure the state directory exists and can take the state file: creates it and
    /// any missing parents like `mkdir -p`, mode 0755 as systemd's `StateDirectory=` does
    /// (`StateDirectoryMode=` default), then checks it is a directory this process can write
    /// (access(2) W_OK | X_OK). Throws naming the path and errno.
    public func prepareDirectory() throws(SystemError) {
        try DurableFiles.prepareDirectory(directory)
    }

    /// Renames the state file to `state.corrupt-YYYYMMDDTHHMMSSZ` (UTC of `realtime`), or
    /// `...Z-2`, `...Z-3`, ... when that name is taken (two set aside within one second:
    /// neither is lost), and returns the new path.
    @discardableResult
    public func setAside(realtime: Duration) throws(SystemError) -> String {
        let base = "\(path).corrupt-\(Self.timestamp(realtime))"
        guard let target = (1...1000).lazy.map({ $0 == 1 ? base : "\(base)-\($0)" }).first(where: DurableFiles.isFree) else {
            throw SystemError(operation: "rename", path: "\(path) → \(base)-1000", errno: EEXIST)
        }
        try DurableFiles.rename(path, to: target)
        try DurableFiles.syncDirectory(directory)
        return target
    }

    /// `YYYYMMDDTHHMMSSZ` via gmtime_r(3).
    static func timestamp(_ realtime: Duration) -> String {
        var seconds = time_t(realtime.components.seconds)
        var t = tm()
        gmtime_r(&seconds, &t)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(t.tm_year + 1900)\(two(t.tm_mon + 1))\(two(t.tm_mday))T\(two(t.tm_hour))\(two(t.tm_min))\(two(t.tm_sec))Z"
    }
}
