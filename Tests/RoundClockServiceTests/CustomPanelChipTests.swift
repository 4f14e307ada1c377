import BoardSpec
import HT16K33
import I2CPlayback
import Panels
import RoundClockCore
import SegmentDisplay
import Testing
@testable import RoundClockService

/// A custom-wired 6-digit time panel at the chip: the exact transfers a 2-hour countdown
/// makes (start-up, then only the bytes that change), scripted on a playback device.
@Suite struct CustomPanelChipTests {
    /// boards/bigdigits.toml's `big6`: digit n on COMn (a...g = ROW0...6, dp = ROW7),
    /// colons after digits 2 and 4 on COM6 ROW0+1 and ROW2+3.
    static let big6 = LayoutKind.custom(
        name: "big6", font: .sevenSegment,
        digits: (0..<6).map { DigitWiring.common($0, segments: 7, point: true) },
        colons: [2, 4].map { ColonWiring(after: $0, bits: [RAMBit(com: 6, row: $0 - 2), RAMBit(com: 6, row: $0 - 1)]) })

    @Test func aTwoHourCountdownWritesOnlyTheChangedBytes() async throws {
        let zeros = [UInt8](repeating: 0, count: 16)
        let script: [PlaybackI2CDevice.Step] = [
            .send(0x21), .block(0x00, zeros), .send(0x81), .send(0xEF),
            // 2:00:00 — digits 2...6 on bytes 2, 4, 6, 8, 10; both colons (byte 12 = 0x0F).
            .block(0x02, [0x5B, 0, 0x3F, 0, 0x3F, 0, 0x3F, 0, 0x3F, 0, 0x0F]),
            // 1:59:59 — bytes 2...10 change, the colons stay.
            .block(0x02, [0x06, 0, 0x6D, 0, 0x6F, 0, 0x6D, 0, 0x6F]),
            // 1:59:58 — one byte.
            .block(0x0A, [0x7F]),
        ]
        let display = BoardDisplay(specs: [PanelSpec(role: .time, kind: Self.big6, address: 0x70)], devices: [PlaybackI2CDevice(script)],
                                   readBack: false, powerChecks: nil)
        #expect(await display.start().isEmpty)
        var controller = Controller<VirtualClock.Instant>(program: try Presets.countdown(.seconds(7200)))
        controller.panelWidths = PanelWidths(time: 6, round: 2)
        let start = VirtualClock.Instant(offset: .zero)
        _ = controller.perform(.start, at: start)
        var texts: [String] = []
        for second in 0...2 {
            let face = controller.face(at: start.advanced(by: .seconds(second)), wallTime: WallTime(hour: 12, minute: 0))
            let update = await display.show(face)
            texts += update.panels.map(\.text)
        }
        #expect(texts == [" 2:00:00", " 1:59:59", " 1:59:58"])
        let problems = await display.inspect { devices -> String? in
            do { try devices[0].finish(); return nil } catch { return "\(error)" }
        }
        #expect(problems == nil, "exactly the scripted transfers")
    }
}
