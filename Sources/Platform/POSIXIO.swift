#if canImport(Glibc)
import Glibc
#endif

/// The read(2)/write(2) loops shared by the state files, the journal lines, the CLI's
/// output and the benchmarks' /proc reads: EINTR is retried and short transfers are
/// continued here, once. (LinuxHardware has its own `retryingEINTR` for the device calls:
/// it does not depend on this target.)
public enum POSIXIO {
    /// Writes all of `bytes` to `fd`. Returns 0, or the errno that stopped it.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            rest = rest.dropFirst(n)
        }
        return 0
    }

    /// Reads `fd` to its end, but never more than `limit + 1` bytes. Returns the bytes read
    /// and 0, or the bytes read so far and the errno that stopped it (EFBIG once more than
    /// `limit` bytes came: the rest is not read, so `/dev/zero` or a huge file costs nothing).
    public static func readAll(_ fd: Int32, limit: Int) -> (bytes: [UInt8], errno: Int32) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let wanted = min(buffer.count, limit + 1 - bytes.count)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if n < 0 {
                if errno == EINTR { continue }
                return (bytes, errno)
            }
            if n == 0 { return (bytes, 0) }
            bytes += buffer[0..<n]
            if bytes.count > limit { return (bytes, EFBIG) }
        }
    }

    /// strerror(3) and the number, as every error line shows them.
    public static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
