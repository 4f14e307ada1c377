import CardSetup
import RoundClockConfig
import Testing

@Suite struct CardTextTests {
    @Test func windowsAndOldMacFilesReadAsPlainText() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(CardText.normalized(bom + Array("program = \"tabata\"\r\n[remote]\r\npin = \"4821\"\r\n".utf8))
            == "program = \"tabata\"\n[remote]\npin = \"4821\"\n")
        #expect(CardText.normalized(Array("a = 1\rb = 2\r".utf8)) == "a = 1\nb = 2\n")
        #expect(CardText.normalized([0x61, 0xFF]) == nil)
    }

    @Test func passphraseLineIsReplacedAndTheRestKept() throws {
        let text = """
            program = "boxing"
            [wifi]
            ssid = "Gym"
              passphrase = "correct horse"   # the router's
            country = "GB"
            [mqtt]
            passphrase_note = 1
            """
        let redacted = try #require(CardText.withoutPassphrase(text))
        #expect(!redacted.contains("correct horse"))
        #expect(redacted.contains("  \(CardText.removedPassphrase)"))
        #expect(redacted.contains("ssid = \"Gym\"") && redacted.contains("country = \"GB\""))
        #expect(redacted.split(separator: "\n").count == text.split(separator: "\n").count)
    }

    @Test func dottedTopLevelPassphraseIsFoundToo() throws {
        let text = "wifi.ssid = \"Gym\"\nwifi . passphrase = \"correct horse\"\n"
        let redacted = try #require(CardText.withoutPassphrase(text))
        #expect(!redacted.contains("correct horse"))
    }

    @Test func aPassphraseOfAnotherTableOrNoneIsLeftAlone() {
        #expect(CardText.withoutPassphrase("[wifi]\nssid = \"Gym\"\n") == nil)
        #expect(CardText.withoutPassphrase("[sync]\npassphrase = \"x\"\n") == nil)
        #expect(CardText.withoutPassphrase("[[wifi]]\npassphrase = \"x\"\n") == nil)
    }

    @Test func redactedCardStillPassesTheChecker() throws {
        let text = "[wifi]\nssid = \"Gym\"\npassphrase = \"correct horse\"\n"
        let config = try Config.parse(try #require(CardText.withoutPassphrase(text)), file: "card")
        #expect(config.wifi?.ssid == "Gym" && config.wifi?.passphrase == nil)
    }
}

@Suite struct NetworkManagerKeyfileTests {
    @Test func profileNamesTheNetworkAndItsPassphrase() throws {
        let text = NetworkManagerKeyfile.text(WifiSettings(ssid: "Gym Floor", passphrase: "pa\\ss word", hidden: true),
                                              psk: "pa\\ss word")
        #expect(text.contains("type=wifi\n") && text.contains("ssid=Gym Floor\n") && text.contains("hidden=true\n"))
        #expect(text.contains("key-mgmt=wpa-psk\npsk=pa\\\\ss word\n"))
        let read = try #require(NetworkManagerKeyfile.network(in: text))
        #expect(read.ssid == "Gym Floor" && read.psk == "pa\\ss word")
    }

    @Test func unusualNamesRoundTrip() throws {
        for ssid in ["a;b", " lead", "Café 5G", "x"] {
            let text = NetworkManagerKeyfile.text(WifiSettings(ssid: ssid), psk: nil)
            #expect(!text.contains("[wifi-security]"))
            #expect(NetworkManagerKeyfile.network(in: text)?.ssid == ssid, "\(ssid)")
        }
    }

    @Test func oneNetworkKeepsOneStableIdentifier() {
        let uuid = NetworkManagerKeyfile.text(WifiSettings(ssid: "Gym"), psk: nil).split(separator: "\n").first { $0.hasPrefix("uuid=") }
        let again = NetworkManagerKeyfile.text(WifiSettings(ssid: "Gym"), psk: "12345678").split(separator: "\n").first { $0.hasPrefix("uuid=") }
        let other = NetworkManagerKeyfile.text(WifiSettings(ssid: "Gym2"), psk: nil).split(separator: "\n").first { $0.hasPrefix("uuid=") }
        #expect(uuid == again && uuid != other)
        let value = String(uuid?.dropFirst(5) ?? "")
        #expect(value.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(value.split(separator: "-")[2].hasPrefix("4"))
    }
}
