@testable import GatewayAccess
import NIOCore
import Testing

/// How the limits name a client: an IP address without the port, each IPv6 address on its own
/// (for the connection caps, its /64), IPv4-mapped as IPv4.
@Suite struct AddressKeyTests {
    func key(_ ip: String) throws -> String { AddressKey(try SocketAddress(ipAddress: ip, port: 443)).description }

    @Test func ipv4IsTheAddressWithoutThePort() throws {
        #expect(try key("192.0.2.7") == "192.0.2.7")
        #expect(try key("127.0.0.5") == "127.0.0.5")
    }

    @Test func phonesInOneIpv6Slash64AreDifferentClients() throws {
        #expect(try key("fd00::bad") != key("fd00::c0c4"))
        #expect(try key("2001:db8:0:1:ffff:eeee:dddd:cccc") == "2001:db8:0:1:ffff:eeee:dddd:cccc")
    }

    @Test func theConnectionCapsCountAnIpv6Slash64AsOneClient() throws {
        let network = { (ip: String) in AddressKey.network(try SocketAddress(ipAddress: ip, port: 443)).description }
        #expect(try network("fd00::bad") == "fd00::/64")
        #expect(try network("fd00::c0c4") == network("fd00::bad"))
        #expect(try network("2001:db8:0:1:ffff:eeee:dddd:cccc") == "2001:db8:0:1::/64")
        #expect(try network("2001:db8:0:2::1") != network("2001:db8:0:1::1"))
        #expect(try network("192.0.2.7") == "192.0.2.7")
        #expect(try network("::ffff:192.0.2.7") == "192.0.2.7")
    }

    @Test func ipv6IsWrittenAsRFC5952Says() throws {
        #expect(try key("fd00:0:0:0:0:0:0:c0c4") == "fd00::c0c4")
        #expect(try key("2001:db8:0:1::1") == "2001:db8:0:1::1")
        #expect(try key("2001:db8:0:0:1:0:0:1") == "2001:db8::1:0:0:1", "the first of two equal runs")
        #expect(try key("2001:db8:0:1:1:1:1:1") == "2001:db8:0:1:1:1:1:1", "a single zero group stays")
        #expect(try key("fe80::1") == "fe80::1")
        #expect(try key("::1") == "::1")
        #expect(try key("::") == "::")
        #expect(try key("1::") == "1::")
    }

    @Test func ipv4MappedIpv6IsItsIpv4Address() throws {
        #expect(try key("::ffff:192.0.2.7") == "192.0.2.7")
    }

    @Test func noAddressIsUnknown() {
        #expect(AddressKey(nil).description == "unknown")
    }
}
