#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// Runs `call` until it does not fail with EINTR: the one place interrupted system calls
/// are retried for the calls swift-system does not wrap (ioctl through libi2c, libgpiod,
/// poll, fsync, rename, sendto, ...; swift-system's `FileDescriptor` calls retry EINTR
/// themselves, `retryOnInterrupt: true` by default). Returns the result, or the negative
/// result with the final errno.
@inline(__always)
public func retryingEINTR<Result: FixedWidthInteger & SignedInteger>(_ call: () -> Result) -> (result: Result, errno: Int32) {
    while true {
        let result = call()
        if result >= 0 { return (result, 0) }
        let code = Glibc.errno
        if code != EINTR { return (result, code) }
    }
}

/// Sleeps until `deadline` on `clock` (clock_nanosleep(2) with TIMER_ABSTIME), sleeping on
/// after a signal handler ran (EINTR): an absolute deadline stays right however often it is
/// interrupted. clock_nanosleep returns its error instead of setting errno, so this is its
/// `retryingEINTR`.
public func sleepUntil(_ deadline: timespec, on clock: clockid_t) {
    var until = deadline
    while clock_nanosleep(clock, TIMER_ABSTIME, &until, nil) == EINTR {}
}

/// Runs a swift-system call whose `throws` is untyped, its error as the `Errno` it is.
func errnoThrowing<R>(_ call: () throws -> R) throws(Errno) -> R {
    do { return try call() } catch { throw error as? Errno ?? .ioError }
}

extension SystemError {
    /// Runs a swift-system call, naming `subject` and `operation` if it throws.
    @discardableResult
    static func naming<R>(_ subject: String, _ operation: String, _ phrasing: Phrasing,
                          _ call: () throws -> R) throws(SystemError) -> R {
        do throws(Errno) {
            return try errnoThrowing(call)
        } catch {
            throw SystemError(subject, operation, errno: error, phrasing: phrasing)
        }
    }

    /// A raw call through `retryingEINTR` that returns -1 and sets errno on failure.
    package static func check(_ subject: String, _ operation: String, _ phrasing: Phrasing,
                      _ call: () -> Int32) throws(SystemError) {
        let r = retryingEINTR(call)
        guard r.result >= 0 else { throw SystemError(subject, operation, errno: Errno(rawValue: r.errno), phrasing: phrasing) }
    }
}

/// Writes `value` to a sysfs or procfs attribute (a gpio-sim line's `pull`,
/// /proc/TID/timerslack_ns) in one write(2); errors name the path and errno.
public func writeSysfsAttribute(_ path: String, _ value: String) throws(SystemError) {
    let fd = try SystemError.naming(path, "open", .subjectFirst) {
        try FileDescriptor.open(FilePath(path), .writeOnly, options: .closeOnExec)
    }
    let bytes = Array(value.utf8)
    let written = try SystemError.naming(path, "write \"\(value)\"", .subjectFirst) {
        try fd.closeAfter { try bytes.withUnsafeBytes { try fd.write($0) } }
    }
    guard written == bytes.count else {
        throw SystemError(path, "write \"\(value)\"", errno: .ioError, phrasing: .subjectFirst)
    }
}
