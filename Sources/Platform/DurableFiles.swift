#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// Files that must survive a power cut (the state file): replaced atomically, renames made
/// durable, the directory made and checked before it is needed. Errors are `SystemError`s
/// phrased operation first (`rename A → B: WHY`), naming the step, the path and errno.
public enum DurableFiles {
    /// Replaces `path` atomically: writes `temp` (same directory, so rename(2) cannot cross
    /// file systems), fsync(2), close, rename(2) over `path`, then fsync(2) the directory so
    /// the rename itself is durable. On failure the temp file is removed. Whatever was left at
    /// the temp path (a stale file, a FIFO, a symbolic link) is unlinked first and the temp
    /// file created `O_EXCL | O_NOFOLLOW`: a save never blocks or writes through a link.
    /// `permissions`: the new file's mode before the umask (0600 for a secret such as the
    /// phone remote's generated PIN).
    public static func writeAtomically(_ text: String, path: String, temp: String, directory: String,
                                       permissions: CModeT = 0o644) throws(SystemError) {
        try writeAtomically(bytes: text.utf8, path: path, temp: temp, directory: directory, permissions: permissions)
    }

    /// `writeAtomically` for bytes (a WAV file).
    public static func writeAtomically(bytes: some Sequence<UInt8>, path: String, temp: String, directory: String,
                                       permissions: CModeT = 0o644) throws(SystemError) {
        unlink(temp)
        let fd = try SystemError.naming(temp, "open", .operationFirst) {
            try FileDescriptor.open(FilePath(temp), .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                                    permissions: FilePermissions(rawValue: permissions))
        }
        var closed = false
        do throws(SystemError) {
            try SystemError.naming(temp, "write", .operationFirst) { try fd.writeAll(bytes) }
            try SystemError.check(temp, "fsync", .operationFirst) { fsync(fd.rawValue) }
            closed = true
            try SystemError.naming(temp, "close", .operationFirst) { try fd.close() }
            try rename(temp, to: path)
        } catch {
            if !closed { try? fd.close() }
            unlink(temp)
            throw error
        }
        try syncDirectory(directory)
    }

    /// fsync(2) on a directory opened O_RDONLY | O_DIRECTORY: makes renames in it durable.
    public static func syncDirectory(_ directory: String) throws(SystemError) {
        let fd = try SystemError.naming(directory, "open directory", .operationFirst) {
            try FileDescriptor.open(FilePath(directory), .readOnly, options: [.directory, .closeOnExec])
        }
        defer { try? fd.close() }
        try SystemError.check(directory, "fsync directory", .operationFirst) { fsync(fd.rawValue) }
    }

    /// unlink(2) of `path` in `directory`, made durable with the directory's fsync; a file
    /// already gone is no error.
    public static func remove(_ path: String, directory: String) throws(SystemError) {
        do throws(SystemError) {
            try SystemError.check(path, "unlink", .operationFirst) { unlink(path) }
        } catch where error.errno == ENOENT {
            return
        }
        try syncDirectory(directory)
    }

    /// Renames the file at `path` out of the way, to the first free of `PATH.corrupt`,
    /// `PATH.corrupt-2`, ... `-1000`: the name it got.
    public static func setAside(_ path: String) -> Result<String, SystemError> {
        guard let target = (1...1000).lazy.map({ $0 == 1 ? "\(path).corrupt" : "\(path).corrupt-\($0)" }).first(where: isFree) else {
            return .failure(SystemError(operation: "rename", path: path, errno: EEXIST, reason: "no name free to set it aside"))
        }
        do throws(SystemError) {
            try rename(path, to: target)
            return .success(target)
        } catch {
            return .failure(error)
        }
    }

    /// rename(2) `from` over `to`; the error names both (`rename A → B`).
    public static func rename(_ from: String, to: String) throws(SystemError) {
        try SystemError.check("\(from) → \(to)", "rename", .operationFirst) { Glibc.rename(from, to) }
    }

    /// Whether nothing is at `path`, not even a dangling symbolic link (faccessat(2)
    /// `AT_SYMLINK_NOFOLLOW`).
    public static func isFree(_ path: String) -> Bool {
        faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0
    }

    /// Whether `directory` can take new files, changing nothing: `true` when it is a
    /// directory this process can write (access(2) W_OK | X_OK), `false` when it is missing and
    /// its nearest existing parent is one (`prepareDirectory` would create it). Throws what
    /// stands in the way, naming the path and errno.
    public static func checkDirectory(_ directory: String) throws(SystemError) -> Bool {
        var path = directory
        while true {
            let type: FileType
            do throws(SystemError) {
                type = try SystemError.naming(path, "stat", .operationFirst) { try FilePath(path).stat().type }
            } catch {
                guard error.errno == ENOENT, path != "/", path != "." else { throw error }
                let slash = path.lastIndex(of: "/")
                path = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
                continue
            }
            guard type == .directory else {
                throw SystemError(operation: "use", path: path, errno: ENOTDIR, reason: "not a directory")
            }
            guard access(path, W_OK | X_OK) == 0 else {
                throw SystemError(operation: path == directory ? "write to directory" : "create directory in", path: path, errno: Glibc.errno)
            }
            return path == directory
        }
    }

    /// Makes sure `directory` exists and can take new files: creates it and any missing
    /// parents like `mkdir -p`, mode 0755 as systemd's `StateDirectory=` does
    /// (`StateDirectoryMode=` default), then checks it is a directory this process can write
    /// (access(2) W_OK | X_OK).
    public static func prepareDirectory(_ directory: String) throws(SystemError) {
        var prefix = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            prefix += "/\(component)"
            if mkdir(prefix, 0o755) != 0, Glibc.errno != EEXIST {
                throw SystemError(operation: "create directory", path: prefix, errno: Glibc.errno)
            }
        }
        let type = try SystemError.naming(directory, "stat", .operationFirst) { try FilePath(directory).stat().type }
        guard type == .directory else {
            throw SystemError(operation: "use", path: directory, errno: ENOTDIR, reason: "not a directory")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw SystemError(operation: "write to directory", path: directory, errno: Glibc.errno)
        }
    }
}
