/// Bus traffic seen by an `EmulatedHT16K33`. Bytes count everything but address
/// bytes: a send byte is 1 byte, a block write of n data bytes is n + 1 (register
/// byte included), a read byte data is 2 (register byte, then the byte read after
/// the repeated start); each is 1 transaction. Failed transfers are only counted in
/// `failedTransactions`.
public struct Traffic: Equatable, Sendable, CustomStringConvertible {
    /// Successful transfers.
    public var transactions = 0
    /// Bytes on the wire of successful transfers (command/register byte included).
    public var bytes = 0
    /// Display RAM bytes written.
    public var ramBytes = 0
    /// Data bytes read (power-loss checks); also counted in `bytes` and `transactions`.
    public var readBytes = 0
    /// Transfers that failed (fault injection).
    public var failedTransactions = 0

    public init() {}

    public var description: String {
        "\(transactions) transactions, \(bytes) bytes (\(ramBytes) RAM, \(readBytes) read), \(failedTransactions) failed"
    }
}

extension Traffic {
    /// Counter-wise sum (a whole board's traffic).
    public static func + (a: Traffic, b: Traffic) -> Traffic {
        var t = a
        t.transactions += b.transactions
        t.bytes += b.bytes
        t.ramBytes += b.ramBytes
        t.readBytes += b.readBytes
        t.failedTransactions += b.failedTransactions
        return t
    }

    /// Counter-wise difference (traffic since an earlier reading).
    public static func - (a: Traffic, b: Traffic) -> Traffic {
        var t = a
        t.transactions -= b.transactions
        t.bytes -= b.bytes
        t.ramBytes -= b.ramBytes
        t.readBytes -= b.readBytes
        t.failedTransactions -= b.failedTransactions
        return t
    }
}
