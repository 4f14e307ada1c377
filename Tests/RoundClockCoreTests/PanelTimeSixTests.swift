import Foundation
import TestSupport
import Testing
@testable import RoundClockCore

/// Time texts for 6-digit panels (colons after digits 2 and 4) and the 2-digit round panel.
@Suite struct PanelTimeSixTests {
    @Test func hoursMinutesSecondsFromOneHour() {
        #expect(PanelTime.countdown(.s(7200), cadence: .seconds, digits: 6).text == "2:00:00")
        #expect(PanelTime.countdown(.s(7199.5), cadence: .seconds, digits: 6).text == "2:00:00")
        #expect(PanelTime.countdown(.s(7199), cadence: .seconds, digits: 6).text == "1:59:59")
        #expect(PanelTime.countdown(.s(3600), cadence: .seconds, digits: 6).text == "1:00:00")
        #expect(PanelTime.countdown(.s(3599.5), cadence: .seconds, digits: 6).text == "1:00:00")
        #expect(PanelTime.countdown(.s(3599), cadence: .seconds, digits: 6).text == "59:59")
        #expect(PanelTime.countdown(.s(599), cadence: .seconds, digits: 6).text == " 9:59")
        #expect(PanelTime.countdown(.s(36_000), cadence: .seconds, digits: 6).text == "10:00:00")
        #expect(PanelTime.countdown(.s(999_999), cadence: .seconds, digits: 6).text == "99:59:59")
        #expect(PanelTime.countdown(.zero, cadence: .seconds, digits: 6) == PanelReading(text: " 0:00", changesIn: nil))
        #expect(PanelTime.countUp(.s(6000), cadence: .seconds, digits: 6).text == "1:40:00", "no blinking H:MM above 100 minutes")
        #expect(PanelTime.countUp(.s(6000.7), cadence: .seconds, digits: 6) == PanelReading(text: "1:40:00", changesIn: .s(0.3)))
        #expect(PanelTime.countUp(.s(3599.99), cadence: .seconds, digits: 6).text == "59:59")
        #expect(PanelTime.countUp(.s(8), cadence: .seconds, digits: 8).text == " 0:08")
    }

    @Test func tenthsWhereTheCadenceIsLive() {
        #expect(PanelTime.countdown(.s(65), cadence: .live, digits: 6) == PanelReading(text: " 1:05.0 ", changesIn: .s(0.1)))
        #expect(PanelTime.countdown(.s(64.95), cadence: .live, digits: 6).text == " 1:05.0 ")
        #expect(PanelTime.countdown(.s(3599.9), cadence: .live, digits: 6).text == "59:59.9 ")
        #expect(PanelTime.countdown(.s(3599.95), cadence: .live, digits: 6) == PanelReading(text: "1:00:00", changesIn: .s(0.05)))
        #expect(PanelTime.countdown(.s(3600.5), cadence: .live, digits: 6) == PanelReading(text: "1:00:01", changesIn: .s(0.5)))
        #expect(PanelTime.countUp(.s(12.34), cadence: .live, digits: 6) == PanelReading(text: " 0:12.3 ", changesIn: .s(0.06)))
        #expect(PanelTime.countUp(.s(3600), cadence: .live, digits: 6).text == "1:00:00")
        #expect(PanelTime.countdown(.s(125), cadence: .minutes, digits: 6) == PanelTime.countdown(.s(125), cadence: .minutes))
    }

    /// For random values and every cadence, the text stays the same until `changesIn` and
    /// differs right at it (or never changes, at zero / at the cap).
    @Test func changesInIsTheNextChange() {
        let seed = ProcessInfo.processInfo.environment["ROUNDCLOCK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("PanelTimeSixTests.changesInIsTheNextChange seed \(seed) (replay: ROUNDCLOCK_SEED=\(seed) swift test --filter changesInIsTheNextChange)")
        var random = SplitMix64(seed: seed)
        for _ in 0..<5000 {
            let value = Duration.milliseconds(Int64(random.next() % 8_000_000))
            let cadence = random.pick(Cadence.allCases)
            let down = PanelTime.countdown(value, cadence: cadence, digits: 6)
            if let step = down.changesIn {
                #expect(step > .zero)
                #expect(PanelTime.countdown(value - step + .milliseconds(1), cadence: cadence, digits: 6).text == down.text || step <= .milliseconds(1), "seed \(seed) \(value)")
                #expect(PanelTime.countdown(value - step, cadence: cadence, digits: 6).text != down.text, "seed \(seed) \(value) \(cadence)")
            }
            let up = PanelTime.countUp(value, cadence: cadence, digits: 6)
            if let step = up.changesIn, value + step < .seconds(PanelTime.sixDigitMaximum) {
                #expect(PanelTime.countUp(value + step - .milliseconds(1), cadence: cadence, digits: 6).text == up.text || step <= .milliseconds(1), "seed \(seed) \(value)")
                #expect(PanelTime.countUp(value + step, cadence: cadence, digits: 6).text != up.text, "seed \(seed) \(value) \(cadence)")
            }
        }
    }

    @Test func wallClockWithSecondsOnSixDigits() {
        let six = PanelWidths(time: 6, round: 2)
        let at = WallTime(hour: 18, minute: 59, second: 59).advanced(by: .milliseconds(250))
        let clock = FaceBuilder.clockFace(program: .wallClock, wallTime: at, widths: six)
        #expect(clock.face.time.text == "18:59:59" && clock.next == WallTime(hour: 19, minute: 0))
        #expect(FaceBuilder.clockFace(program: .wallClock, wallTime: at, cadence: .minutes, widths: six).face.time.text == "18:59")
        #expect(FaceBuilder.clockFace(program: .wallClock, wallTime: at).face.time.text == "18:59", "4 digits: HH:MM")
    }

    @Test func twoDigitRoundPanel() {
        #expect(FaceBuilder.roundText(round: 3, of: 12, digits: 2) == " 3")
        #expect(FaceBuilder.roundText(round: 0, of: 12, digits: 2) == "--")
        #expect(FaceBuilder.roundText(round: 12, of: 12, digits: 2) == "12")
        #expect(FaceBuilder.roundText(round: 1, of: 1, digits: 2) == "  ")
        #expect(FaceBuilder.roundText(round: 3, of: 12) == " 3.12")
    }
}
