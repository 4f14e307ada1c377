import Hex
import I2C

/// What `HT16K33Driver.checkForPowerLoss` found. Description, e.g.
/// `RAM @0x02 read back 0x00, expected 0x5b`.
public enum PowerCheck: Equatable, Sendable, CustomStringConvertible {
    /// The RAM byte at `register` read back as written.
    case intact(register: UInt8)
    /// The RAM byte at `register` read `read` instead of `expected`: the chip lost power;
    /// it has been fully re-initialised.
    case reinitialized(register: UInt8, read: UInt8, expected: UInt8)
    /// No byte could tell (every lit byte was rewritten since the last check, which a chip
    /// that lost power in between would also hold): the settings were re-sent instead.
    case settingsReasserted
    /// Nothing read: the chip is not known to match the target yet.
    case skipped
    /// The device cannot read (EOPNOTSUPP): nothing was checked.
    case cannotRead

    public var description: String {
        switch self {
        case let .intact(register): "RAM @0x\(hex(register, digits: 2)) read back as written"
        case let .reinitialized(register, read, expected): "RAM @0x\(hex(register, digits: 2)) read back 0x\(hex(read, digits: 2)), expected 0x\(hex(expected, digits: 2))"
        case .settingsReasserted: "RAM rewritten since the last check, settings re-sent"
        case .skipped: "not checked: chip state unknown"
        case .cannotRead: "not checked: the device cannot read"
        }
    }
}
