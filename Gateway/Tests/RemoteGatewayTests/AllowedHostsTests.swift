@testable import GatewayAccess
import Testing

/// Which `Host` headers name the gateway: its configured names, `<hostname>.local`,
/// `localhost` and IP literals, with or without a port; nothing a rebinding page can use.
@Suite struct AllowedHostsTests {
    let hosts = AllowedHosts(configured: ["clock.gym.example"], machine: "Gym-Pi", listen: "0.0.0.0")

    @Test(arguments: ["clock.gym.example", "CLOCK.gym.example:8080", "gym-pi.local", "gym-pi.local.", "gym-pi.local:80",
                      "localhost:8080", "127.0.0.1", "192.0.2.7:80", "[::1]", "[2001:db8::1]:443", "[fe80::1%25eth0]"])
    func ownNamesAndAddressesAreAccepted(_ authority: String) {
        if authority.contains("%") {
            #expect(!hosts.allows(authority), "a zone id is not an IP literal a browser sends")
        } else {
            #expect(hosts.allows(authority))
        }
    }

    @Test(arguments: ["evil.example", "evil.example:80", "gym-pi", "gym-pi.local.evil.example", "127.0.0.1.evil.example",
                      "clock.gym.example.evil.example", "0x7f.1", "127.1", "[::1", "[::1]x", "gym-pi.local:", "gym-pi.local:80a",
                      "gym-pi.local:123456", "", ":80", "[evil.example]", "0.0.0.0.0"])
    func otherNamesAreRefused(_ authority: String) {
        #expect(!hosts.allows(authority))
    }

    @Test func aListenNameIsAcceptedAndAListenAddressAddsNothing() {
        #expect(AllowedHosts(configured: [], machine: "pi", listen: "clock.lan").allows("clock.lan:80"))
        #expect(AllowedHosts(configured: [], machine: "pi", listen: "0.0.0.0").names == ["localhost", "pi.local"])
    }
}
