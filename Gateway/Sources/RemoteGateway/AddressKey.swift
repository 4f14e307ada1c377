import NIOCore

/// A client as the gateway's limits count it: an IPv4 address, or the /64 of an IPv6 address
/// (a LAN's hosts get their IPv6 addresses from one /64, and one host can take any number of
/// them); an IPv4-mapped IPv6 address counts as its IPv4 address.
public struct AddressKey: Hashable, Sendable, CustomStringConvertible {
    /// `192.0.2.7`, `2001:db8:0:1::/64`, `unix` or `unknown`.
    public let description: String

    public init(_ address: SocketAddress?) {
        switch address {
        case .v4(let v4)?:
            description = Self.dotted(withUnsafeBytes(of: v4.address.sin_addr) { Array($0) })
        case .v6(let v6)?:
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                description = Self.dotted(Array(bytes[12..<16]))
            } else {
                description = Self.prefix64(bytes)
            }
        case .unixDomainSocket?:
            description = "unix"
        case nil:
            description = "unknown"
        }
    }

    private static func dotted(_ bytes: [UInt8]) -> String {
        bytes.map(String.init).joined(separator: ".")
    }

    /// The first four 16-bit groups in hex without leading zeros, trailing zero groups left
    /// out, then `::/64` (`fe80::/64`, `2001:db8:0:1::/64`).
    private static func prefix64(_ bytes: [UInt8]) -> String {
        var groups = (0..<4).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        while groups.last == 0 { groups.removeLast() }
        return groups.map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }
}
