/// Bus traffic seen by an `EmulatedHT16K33`. Bytes count everything after the
/// address byte: a send byte is 1 byte, a block write of n data bytes is n + 1
/// (register byte included); each is 1 transaction. Failed transfers are only
/// counted in `failedTransactions`.
public struct Traffic: Equatable, Sendable, CustomStringConvertible {
    /// Successful transfers.
    public var transactions = 0
    /// Bytes on the wire of successful transfers (command/register byte included).
    public var bytes = 0
    /// Display RAM bytes written.
    public var ramBytes = 0
    /// Transfers that failed (fault injection).
    public var failedTransactions = 0

    public init() {}

    public var description: String {
        "\(transactions) transactions, \(bytes) bytes (\(ramBytes) RAM), \(failedTransactions) failed"
    }
}
