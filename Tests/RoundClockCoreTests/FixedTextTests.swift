import Testing
@testable import RoundClockCore

/// The in-place panel texts (fewer instructions per displayed second) give exactly the
/// texts concatenation gives, over every value a panel can show.
struct FixedTextTests {
    static func twoDigits(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }

    @Test func minutesSecondsMatchesConcatenation() {
        for seconds in Int64(0)..<6000 {
            let m = seconds / 60
            let long = (m >= 10 ? String(m / 10) : " ") + String(m % 10) + ":" + Self.twoDigits(seconds % 60)
            #expect(PanelTime.minutesSeconds(seconds) == long, "\(seconds) s")
        }
    }

    @Test func hoursMinutesMatchesConcatenation() {
        for minutes in Int64(0)...(PanelTime.maximumMinutes + 2) {
            for colon in [false, true] {
                let m = min(minutes, PanelTime.maximumMinutes)
                let h = m / 60
                let long = (h >= 10 ? String(h / 10) : " ") + String(h % 10) + (colon ? ":" : "") + Self.twoDigits(m % 60)
                #expect(PanelTime.hoursMinutes(minutes, colon: colon) == long, "\(minutes) min")
            }
        }
    }

    @Test func secondsHundredthsMatchesConcatenation() {
        for hundredths in Int64(0)..<6000 {
            let s = hundredths / 100
            let long = (s >= 10 ? String(s / 10) : " ") + String(s % 10) + "." + Self.twoDigits(hundredths % 100)
            #expect(PanelTime.secondsHundredths(hundredths) == long, "\(hundredths) cs")
        }
    }

    @Test func clockMatchesConcatenation() {
        for second in stride(from: Int64(0), to: 86_400, by: 7) {
            for half in [Duration.zero, .milliseconds(500)] {
                let colon = half == .zero
                let long = Self.twoDigits(second / 3600) + (colon ? ":" : "") + Self.twoDigits(second / 60 % 60)
                #expect(PanelTime.clock(timeOfDay: .seconds(second) + half).text == long, "\(second) s")
            }
        }
    }

    @Test func outOfRangeDigitsFallBackToConcatenation() {
        #expect(PanelTime.fixed(10, 0, ":", 0, 0, blankZero: true) == nil)
        #expect(PanelTime.minutesSeconds(6000) == "100:00")
    }

    @Test func phasePanelTextIsTheRawValueInCapitals() {
        for kind in PhaseKind.allCases { #expect(kind.panelText == kind.rawValue.uppercased()) }
    }
}
