import NIOCore
import Testing
@testable import RemoteGateway

/// How the limits name a client: IPv4 as is, IPv6 by its /64, IPv4-mapped as IPv4.
@Suite struct AddressKeyTests {
    func key(_ ip: String) throws -> String { AddressKey(try SocketAddress(ipAddress: ip, port: 443)).description }

    @Test func ipv4IsTheAddressWithoutThePort() throws {
        #expect(try key("192.0.2.7") == "192.0.2.7")
        #expect(try key("127.0.0.5") == "127.0.0.5")
    }

    @Test func ipv6AddressesOfOneSlash64AreOneClient() throws {
        #expect(try key("2001:db8:0:1::1") == "2001:db8:0:1::/64")
        #expect(try key("2001:db8:0:1:ffff:eeee:dddd:cccc") == "2001:db8:0:1::/64")
        #expect(try key("2001:db8:0:2::1") == "2001:db8:0:2::/64")
        #expect(try key("fe80::1") == "fe80::/64")
        #expect(try key("::1") == "::/64")
    }

    @Test func ipv4MappedIpv6IsItsIpv4Address() throws {
        #expect(try key("::ffff:192.0.2.7") == "192.0.2.7")
    }

    @Test func noAddressIsUnknown() {
        #expect(AddressKey(nil).description == "unknown")
    }
}
