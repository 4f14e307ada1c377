import Testing
@testable import RoundClockCore

/// The strict number and time grammars every parser shares.
@Suite struct TimeTextTests {
    @Test func wholeNumberIsDigitsOnly() {
        #expect(WholeNumber.parse("0", atMost: 9) == 0)
        #expect(WholeNumber.parse("007", atMost: 9) == 7)
        #expect(WholeNumber.parse("99", atMost: 99) == 99)
        #expect(WholeNumber.parse("100", atMost: 99) == nil)
        #expect(WholeNumber.parse("9223372036854775807", atMost: .max) == .max)
        for bad in ["", "+5", "-5", " 5", "5 ", "5_0", "1e3", "0x10", "٥", "５", "5.0", "nan"] {
            #expect(WholeNumber.parse(bad, atMost: .max) == nil, "\(bad)")
        }
        // Longer than any Int64: no trap, just nil.
        #expect(WholeNumber.parse("9223372036854775808", atMost: .max) == nil)
        #expect(WholeNumber.parse(String(repeating: "9", count: 400), atMost: .max) == nil)
        #expect(WholeNumber.isDigits(String(repeating: "9", count: 400)) && !WholeNumber.isDigits("+1"))
    }

    @Test func timesAreStrict() {
        let day = TimeLimits.maximumPhase
        #expect(TimeText.parse("0:45", atMost: day) == .seconds(45))
        #expect(TimeText.parse("1:00:05", atMost: day) == .seconds(3605))
        #expect(TimeText.parse("24:00:00", atMost: day) == day)
        #expect(TimeText.parse("1440:00", atMost: day) == day)
        #expect(TimeText.parse("86400", atMost: day) == day)
        #expect(TimeText.parse("2.123456789", atMost: day) == .nanoseconds(2_123_456_789))
        for tooLong in ["24:00:01", "1440:01", "86400.000000001", "86401", "153722867280912931:00", "99999999999999999999999:00:00"] {
            #expect(TimeText.parse(tooLong, atMost: day) == nil, "\(tooLong)")
            #expect(TimeText.isTooLong(tooLong, atMost: day), "\(tooLong) reads as too long, not malformed")
        }
        for bad in ["+1:00", "-1:00", " 1:00", "1:00 ", "1: 00", "1:+0", "1:2", "1::00", "1:00:", ":00", "1:0:00", "1:00:0",
                    "1.", ".5", "1.0000000001", "1e3", "0x10", "inf", "nan", "١:٠٠", "1:00:00:00"] {
            #expect(TimeText.parse(bad, atMost: TimeLimits.maximumElapsed) == nil, "\(bad)")
            #expect(!TimeText.isTooLong(bad, atMost: day), "\(bad) is malformed")
        }
        #expect(TimeText.seconds("1:00", atMost: day) == nil, "seconds only")
    }

    @Test func timeOfDayHasExactFieldWidths() {
        #expect(TimeText.timeOfDay("18:30", withSeconds: false) == .seconds(18 * 3600 + 30 * 60))
        #expect(TimeText.timeOfDay("23:59:59", withSeconds: true) == .seconds(86_399))
        #expect(TimeText.timeOfDay("00:00", withSeconds: true) == .zero)
        for bad in ["18::30", "18:30:", "1:2", "+1:00", "8:30", "18:3", "24:00", "23:60", "18:30:60", "18 :30", "18:30:00:00", "", ":"] {
            #expect(TimeText.timeOfDay(bad, withSeconds: true) == nil, "\(bad)")
        }
        #expect(TimeText.timeOfDay("18:30:00", withSeconds: false) == nil)
    }

    @Test func presetArgumentsAreStrict() {
        for spec in ["emom:+5", "emom:-5", "emom: 5", "amrap:+20", "fortime:2_0", "countdown: 1:00", "countdown:+1:00",
                     "emom:99999999999999999999999", "countdown:153722867280912931:00"] {
            #expect(throws: SpecError.self, "\(spec)") { try ProgramSpec.parse(spec) }
        }
        #expect(throws: SpecError.self) { try ProgramSpec.parse("+3 x 1:00") }
        #expect(throws: SpecError.self) { try ProgramSpec.parse("3 x +1:00") }
    }

    @Test func longestProgramsAreAcceptedExactly() throws {
        let longest = try ProgramSpec.parse("99 x 24:00:00/24:00:00, prep 24:00:00, warn 23:59:59")
        #expect(longest.phases.count == 1 + 99 + 98)
        #expect(longest.total == TimeLimits.maximumPhase * 198)
        #expect(try #require(longest.total) <= TimeLimits.maximumProgram)
        #expect(try ProgramSpec.parse("countdown:1440:00").total == TimeLimits.maximumPhase)
        #expect(try ProgramSpec.parse("amrap:1440").total == TimeLimits.maximumPhase + .seconds(10))
        #expect(try ProgramSpec.parse("emom:99").rounds == 99)
    }

    @Test func programsOverTheLimitsAreRefused() {
        let day = TimeLimits.maximumPhase
        let tooLong = Phase(.work, length: day + .nanoseconds(1), round: 1)
        #expect(throws: ProgramError.self) { try Program(name: "p", label: "P", phases: [tooLong]) }
        let many = (1...(TimeLimits.maximumPhases + 1)).map { Phase(.work, length: .seconds(1), round: $0) }
        #expect(throws: ProgramError.self) { try Program(name: "p", label: "P", phases: many) }
        #expect(throws: ProgramError.self) {
            try Program(name: "p", label: "P", phases: [Phase(.work, length: .seconds(60), round: 1)], warning: day * 2)
        }
    }

    @Test func eventTimesAreBounded() throws {
        let latest = TimeLimits.maximumRun.floorSeconds
        #expect(try ScriptedPress.parseList("\(latest):stop").first?.at == TimeLimits.maximumRun)
        for list in ["\(latest + 1):stop", "153722867280912931:start", "\(latest):stop:1", "1:stop:\(latest)", "+1:stop", "1:stop:+1",
                     "1:stop:inf", "nan:start"] {
            #expect(throws: EventScriptError.self, "\(list)") { try ScriptedPress.parseList(list) }
        }
    }

    /// Values no parser lets through still never trap the display arithmetic.
    @Test func panelArithmeticSaturatesOnAbsurdDurations() {
        let absurd = Duration(secondsComponent: .max, attosecondsComponent: 0) * 9
        for d in [absurd, .zero - absurd, TimeLimits.maximumElapsed, TimeLimits.maximumElapsed * 2] {
            _ = PanelTime.countdown(d)
            _ = PanelTime.countUp(d, cadence: .minutes)
            _ = PanelTime.offset(d)
            #expect(PanelTime.countUp(d).text.count == 4 || PanelTime.countUp(d).text.count == 5)
        }
        #expect(absurd.floorSeconds == .max && (.zero - absurd).ceilSeconds == .min)
        #expect(PanelTime.countUp(absurd).text.filter(\.isNumber) == "9959", "99:59 is the most a panel shows")
        let session = Session<T>(program: Presets.stopwatch, elapsedBefore: absurd)
        #expect(session.elapsed(at: T(.zero)) == TimeLimits.maximumElapsed)
    }
}
