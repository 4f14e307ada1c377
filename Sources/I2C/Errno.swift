/// Linux errno values an I2C transfer commonly fails with (asm-generic/errno-base.h
/// and errno.h). Kept here so the pure targets need no C module.
public enum Errno {
    public static let EPERM: Int32 = 1
    public static let ENOENT: Int32 = 2
    public static let EINTR: Int32 = 4
    /// I/O error: what i2c-dev reports for most bus failures.
    public static let EIO: Int32 = 5
    /// No such device or address: the target did not ACK its address (NACK).
    public static let ENXIO: Int32 = 6
    public static let EBADF: Int32 = 9
    /// Bus busy / arbitration lost.
    public static let EAGAIN: Int32 = 11
    public static let ENOMEM: Int32 = 12
    public static let EACCES: Int32 = 13
    public static let EBUSY: Int32 = 16
    public static let ENODEV: Int32 = 19
    public static let EINVAL: Int32 = 22
    public static let ENOTTY: Int32 = 25
    /// Protocol error (used by `PlaybackI2CDevice` for an unexpected transfer).
    public static let EPROTO: Int32 = 71
    public static let EOPNOTSUPP: Int32 = 95
    public static let ETIMEDOUT: Int32 = 110
    /// Remote I/O error: NACK on data on some adapters.
    public static let EREMOTEIO: Int32 = 121

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO",
        EBADF: "EBADF", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES",
        EBUSY: "EBUSY", ENODEV: "ENODEV", EINVAL: "EINVAL", ENOTTY: "ENOTTY",
        EPROTO: "EPROTO", EOPNOTSUPP: "EOPNOTSUPP", ETIMEDOUT: "ETIMEDOUT",
        EREMOTEIO: "EREMOTEIO",
    ]

    /// The symbolic name, e.g. `"EIO"`, or `"errno"` for codes not in the table.
    public static func name(_ code: Int32) -> String {
        names[code] ?? "errno"
    }
}
