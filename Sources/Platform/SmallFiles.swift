import SystemPackage

/// Reading the small files a user or a crash can put anything at (board, config, state,
/// boot id): opened without ever blocking (`FileDescriptor.openWithoutBlocking`), anything
/// but a regular file refused before a byte is read, never more than the limit + 1 bytes
/// read. Errors are `SystemError`s phrased operation first (`open PATH: WHY`).
public enum SmallFiles {
    /// The largest state or boot-id file read: 64 KiB (a state file is a few hundred bytes).
    public static let textLimit = 65_536

    /// The bytes of the regular file at `path`, at most `limit` of them. Not a regular
    /// file: `open`, EINVAL, reason `is a FIFO (named pipe), not a regular file`. Larger:
    /// `read`, EFBIG, reason `larger than N KiB`.
    public static func read(_ path: String, limit: Int, followSymlinks: Bool = true) throws(SystemError) -> [UInt8] {
        switch FileDescriptor.openWithoutBlocking(path, .readOnly, options: followSymlinks ? [] : .noFollow, allowed: [.regular]) {
        case .failed(let operation, let errno):
            throw SystemError(path, operation, errno: errno, phrasing: .operationFirst)
        case .wrongKind(let kind):
            throw SystemError(path, "open", errno: .invalidArgument, reason: "is \(kind.rawValue), not a regular file", phrasing: .operationFirst)
        case .opened(let fd):
            defer { try? fd.close() }
            do throws(Errno) {
                return try fd.readAll(limit: limit)
            } catch {
                let tooLarge = error == .fileTooLarge
                throw SystemError(path, "read", errno: error, reason: tooLarge ? "larger than \(limit / 1024) KiB" : nil, phrasing: .operationFirst)
            }
        }
    }

    /// A regular file of at most `limit` bytes (64 KiB unless told) as UTF-8 (`O_NOFOLLOW`
    /// unless `followSymlinks`); not UTF-8: `decode`, EILSEQ, reason `not UTF-8 text`.
    public static func readText(_ path: String, limit: Int = textLimit, followSymlinks: Bool = true) throws(SystemError) -> String {
        let bytes = try read(path, limit: limit, followSymlinks: followSymlinks)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SystemError(path, "decode", errno: .illegalByteSequence, reason: "not UTF-8 text", phrasing: .operationFirst)
        }
        return text
    }

    /// Whether the error says the file is larger than the limit (EFBIG with a reason).
    public static func isTooLarge(_ error: SystemError) -> Bool {
        error.code == .fileTooLarge && error.reason != nil
    }
}
