import Testing
@testable import RoundClockCore

@Suite struct PanelTimeTests {
    @Test func countdownShowsTheCeiling() {
        #expect(PanelTime.countdown(.s(599)).text == " 9:59")
        #expect(PanelTime.countdown(.s(598.001)).text == " 9:59")
        #expect(PanelTime.countdown(.s(600)).text == "10:00")
        #expect(PanelTime.countdown(.s(5)).text == " 0:05")
        #expect(PanelTime.countdown(.s(0.001)).text == " 0:01")
        #expect(PanelTime.countdown(.zero).text == " 0:00")
        #expect(PanelTime.countdown(.zero).changesIn == nil)
        #expect(PanelTime.countdown(.s(-3)).text == " 0:00")
        #expect(PanelTime.countdown(.s(5999)).text == "99:59")
    }

    @Test func countUpShowsTheFloor() {
        #expect(PanelTime.countUp(.s(59.999)).text == " 0:59")
        #expect(PanelTime.countUp(.s(60)).text == " 1:00")
        #expect(PanelTime.countUp(.s(5999.9)).text == "99:59")
        #expect(PanelTime.countUp(.s(-1)).text == " 0:00")
    }

    @Test func changesInLandsOnTheNextSecondBoundary() {
        #expect(PanelTime.countdown(.s(10)).changesIn == .s(1))
        #expect(PanelTime.countdown(.s(9.25)).changesIn == .s(0.25))
        #expect(PanelTime.countUp(.s(9.25)).changesIn == .s(0.75))
        #expect(PanelTime.countUp(.zero).changesIn == .s(1))
    }

    @Test func hoursAndMinutesFrom100MinutesWithBlinkingColon() {
        // 100:00 remaining: H:MM, colon lit in the first half of the displayed second.
        #expect(PanelTime.countdown(.s(6000)).text == " 1:40")
        #expect(PanelTime.countdown(.s(6000)).changesIn == .s(0.5))
        #expect(PanelTime.countdown(.s(5999.6)).text == " 1:40")
        #expect(PanelTime.countdown(.s(5999.4)).text == " 140")
        #expect(PanelTime.countdown(.s(5999.4)).changesIn == .s(0.4))
        #expect(PanelTime.countdown(.s(5999)).text == "99:59")
        #expect(PanelTime.countdown(.s(6001)).text == " 1:41")
        #expect(PanelTime.countdown(.s(36000)).text == "10:00")
        #expect(PanelTime.countUp(.s(6000.2)).text == " 1:40")
        #expect(PanelTime.countUp(.s(6000.7)).text == " 140")
        #expect(PanelTime.countUp(.s(6000.7)).changesIn == .s(0.3))
        #expect(PanelTime.countUp(.s(7259)).text == " 2:00")
        #expect(PanelTime.countUp(.s(1_000_000)).text == "99:59", "clamped")
    }

    @Test func cadences() {
        #expect(PanelTime.countdown(.s(90), cadence: .minutes).text == " 0:02")
        #expect(PanelTime.countdown(.s(90), cadence: .minutes).changesIn == .s(30))
        #expect(PanelTime.countUp(.s(150), cadence: .minutes).text == " 0:02")
        #expect(PanelTime.countUp(.s(12.345), cadence: .live).text == "12.34")
        #expect(PanelTime.countUp(.s(12.345), cadence: .live).changesIn == .s(0.005))
        #expect(PanelTime.countUp(.s(61), cadence: .live).text == " 1:01")
        #expect(PanelTime.countdown(.s(9.001), cadence: .live).text == " 9.01")
        #expect(PanelTime.countdown(.s(60), cadence: .live).text == " 1:00")
        #expect(PanelTime.countdown(.s(60), cadence: .live).changesIn == .s(0.01))
        #expect(PanelTime.countdown(.s(59.99), cadence: .live).text == "59.99")
    }

    @Test func offset() {
        #expect(PanelTime.offset(.s(-5)).text == "-0:05")
        #expect(PanelTime.offset(.s(-0.5)).text == "-0:01")
        #expect(PanelTime.offset(.s(-0.5)).changesIn == .s(0.5))
        #expect(PanelTime.offset(.zero).text == "+0:00")
        #expect(PanelTime.offset(.s(75.5)).text == "+1:15")
        #expect(PanelTime.offset(.s(3600)).text == "+1:00")
    }

    @Test func wallClock() {
        #expect(PanelTime.clock(timeOfDay: .s(9 * 3600 + 5 * 60 + 0.2)).text == "09:05")
        #expect(PanelTime.clock(timeOfDay: .s(9 * 3600 + 5 * 60 + 0.7)).text == "0905")
        #expect(PanelTime.clock(timeOfDay: .s(23 * 3600 + 59 * 60 + 59.9)).changesIn == .s(0.1))
        #expect(PanelTime.clock(timeOfDay: .s(86400 + 60)).text == "00:01")
    }
}

@Suite struct ScheduleTests {
    @Test func everyMinuteOnTheMinute() {
        let s = EveryMinuteSchedule()
        #expect(s.next(after: WallTime(hour: 9, minute: 5, second: 30)) == WallTime(hour: 9, minute: 6))
        #expect(s.next(after: WallTime(hour: 9, minute: 6)) == WallTime(hour: 9, minute: 7))
        #expect(s.next(after: WallTime(hour: 23, minute: 59, second: 59)) == WallTime(hour: 0, minute: 0, day: 1))
    }

    @Test func periodicFromBy() {
        let s = PeriodicSchedule(from: T.s(10), by: .s(0.5))
        #expect(s.next(after: .s(0)) == .s(10))
        #expect(s.next(after: .s(10)) == .s(10.5))
        #expect(s.next(after: .s(10.7)) == .s(11))
        #expect(s.next(after: .s(1e6)) == .s(1e6 + 0.5))
    }

    @Test func explicit() {
        let e = ExplicitSchedule([T.s(5), .s(1), .s(3)])
        #expect(e.next(after: .s(0)) == .s(1))
        #expect(e.next(after: .s(3)) == .s(5))
        #expect(e.next(after: .s(5)) == nil)
    }
}
