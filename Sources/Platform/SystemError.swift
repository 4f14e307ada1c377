import SystemPackage

/// A failed system call, or a check made in place of one: what it was about (a device, a
/// path, a socket, the signal pipe), the operation, and the `Errno` (swift-system's). It is
/// the one error that carries an errno outside the pure I2C target, whose `I2CError` names a
/// bus, an address and a transfer instead.
///
/// It reads one of two ways, each the wording the journal and the CLI have always shown:
/// - `.subjectFirst`: `/dev/i2c-250: open failed: No such file or directory (errno 2)`
///   (devices, GPIO lines, sysfs attributes, the frames file);
/// - `.operationFirst`: `open /var/lib/roundclock/.state.tmp: No such file or directory (errno 2)`
///   (the state files, sd_notify, the signal pipe).
///
/// `reason`, when set, stands instead of the errno's words: nothing failed, but the file
/// cannot be used (a FIFO with no reader, a file too large, not UTF-8).
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Phrasing: Sendable, Hashable {
        /// `SUBJECT: OPERATION failed: WHY`
        case subjectFirst
        /// `OPERATION SUBJECT: WHY`
        case operationFirst
    }

    /// The device, path or socket the operation was on.
    public var subject: String
    /// `open`, `write`, `fsync directory`, `request output`, `sd_notify sendto`, ...
    public var operation: String
    /// The errno, as swift-system's `Errno`.
    public var code: Errno
    public var reason: String?
    public var phrasing: Phrasing

    public init(_ subject: String, _ operation: String, errno: Errno, reason: String? = nil, phrasing: Phrasing) {
        self.subject = subject
        self.operation = operation
        self.code = errno
        self.reason = reason
        self.phrasing = phrasing
    }

    /// `DEVICE: OPERATION failed: WHY`, for a device, a line or a file a device is behind.
    public init(device: String, operation: String, errno: Int32, reason: String? = nil) {
        self.init(device, operation, errno: Errno(rawValue: errno), reason: reason, phrasing: .subjectFirst)
    }

    /// `OPERATION PATH: WHY`, for the state files and the other paths that read that way.
    public init(operation: String, path: String, errno: Int32, reason: String? = nil) {
        self.init(path, operation, errno: Errno(rawValue: errno), reason: reason, phrasing: .operationFirst)
    }

    /// The errno as the C constants spell it (`ENOENT`, ...).
    public var errno: Int32 { code.rawValue }

    /// The errno's words and number, or the reason.
    public var why: String { reason ?? Self.describe(errno) }

    public var description: String {
        switch phrasing {
        case .subjectFirst: "\(subject): \(operation) failed: \(why)"
        case .operationFirst: "\(operation) \(subject): \(why)"
        }
    }

    /// strerror(3)'s words for `code` (swift-system's `Errno.description`): the one place
    /// an errno becomes text.
    public static func words(_ code: Int32) -> String {
        Errno(rawValue: code).description
    }

    /// `No such file or directory (errno 2)`: an errno as every error line shows it.
    public static func describe(_ code: Int32) -> String {
        "\(words(code)) (errno \(code))"
    }
}
