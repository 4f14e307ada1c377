import NIOCore

/// A client as the gateway's limits count it: its IP address without the port (the PIN
/// back-off's key: every phone on a LAN shares its /64, so there each IPv6 address counts on its
/// own), or for the connection caps its `network`: an IPv6 address's /64, which one host can
/// fill with addresses of its own. An IPv4-mapped IPv6 address counts as its IPv4 address.
/// The tables keyed by it are bounded, so a host taking many addresses cannot grow them.
public struct AddressKey: Hashable, Sendable, CustomStringConvertible {
    /// `192.0.2.7`, `2001:db8::7`, `2001:db8::/64`, `unix` or `unknown`.
    public let description: String

    private init(text: String) { description = text }

    /// The connection caps' client: an IPv6 address's /64 (`2001:db8:0:1::/64`), else the
    /// address as `init` names it.
    public static func network(_ address: SocketAddress?) -> AddressKey {
        guard case .v6(let v6)? = address else { return AddressKey(address) }
        let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return AddressKey(address) }
        return AddressKey(text: compressed(Array(bytes[0..<8]) + Array(repeating: 0, count: 8)) + "/64")
    }

    public init(_ address: SocketAddress?) {
        switch address {
        case .v4(let v4)?:
            description = Self.dotted(withUnsafeBytes(of: v4.address.sin_addr) { Array($0) })
        case .v6(let v6)?:
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                description = Self.dotted(Array(bytes[12..<16]))
            } else {
                description = Self.compressed(bytes)
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

    /// RFC 5952's text: hex groups without leading zeros, the longest run of two or more zero
    /// groups (the first of equal runs) as `::` (`fd00::c0c4`, `2001:db8:0:1::1`, `::1`).
    private static func compressed(_ bytes: [UInt8]) -> String {
        let groups = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var best: Range<Int>?
        var start: Int?
        for index in 0...8 {
            if index < 8, groups[index] == 0 {
                if start == nil { start = index }
            } else if let from = start {
                if index - from >= 2, index - from > best?.count ?? 0 { best = from..<index }
                start = nil
            }
        }
        let text = { (range: Range<Int>) in groups[range].map { String($0, radix: 16) }.joined(separator: ":") }
        guard let best else { return text(0..<8) }
        return text(0..<best.lowerBound) + "::" + text(best.upperBound..<8)
    }
}
