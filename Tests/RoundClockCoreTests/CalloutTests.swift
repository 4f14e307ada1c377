import Testing
@testable import RoundClockCore

@Suite struct CalloutTests {
    /// The plan as "seconds signal: phrase" lines.
    static func lines(_ program: Program) -> [String] {
        Callouts.plan(for: program).map { "\($0.offset.components.seconds) \($0.signal.rawValue): \($0.phrase)" }
    }

    @Test func boxingCallsEachRoundTheWarningTheRestAndTheLastRound() {
        let lines = Self.lines(Presets.boxing)
        #expect(Array(lines.prefix(4)) == ["10 start: round one", "180 warning: ten seconds", "190 end: rest", "250 start: round two"])
        #expect(lines.contains("1930 start: round nine"))
        #expect(lines.contains("2650 start: last round"))
        #expect(!lines.contains { $0.hasSuffix("round twelve") })
        #expect(Array(lines.suffix(2)) == ["2820 warning: ten seconds", "2830 finish: time"])
        #expect(lines.count == 12 + 12 + 11 + 1)
    }

    @Test func tabataCallsRoundsAndRestsWithoutAWarning() {
        let lines = Self.lines(Presets.tabata)
        #expect(Array(lines.prefix(4)) == ["10 start: round one", "30 end: rest", "40 start: round two", "60 end: rest"])
        #expect(Array(lines.suffix(2)) == ["220 start: last round", "240 finish: time"])
        #expect(lines.count == 8 + 7 + 1)
    }

    @Test func structuredProgramSaysEachIntervalsCalloutAfterTheRound() throws {
        var plan = IntervalPlan(intervals: [
            Interval(label: "WALL", length: .seconds(60), callout: "wall balls"),
            Interval(label: "PUSH", length: .seconds(60)),
        ])
        plan.rounds = 2
        plan.roundRest = .seconds(30)
        let lines = Self.lines(try plan.program(name: "wod", label: "WOD"))
        #expect(lines == [
            "0 start: round one, wall balls", "60 start: push", "120 end: rest",
            "150 start: last round, wall balls", "210 start: push", "270 finish: time",
        ])
    }

    @Test func fightGoneBadNamesItsStationsAndCountsNoRounds() {
        let lines = Self.lines(Presets.fgb)
        #expect(Array(lines.prefix(3)) == ["10 start: wall balls", "70 start: sumo deadlift high pull", "130 start: box jumps"])
        #expect(lines.last == "1030 finish: time")
    }

    @Test func oneRoundCountdownSaysOnlyItsWarningAndTime() throws {
        #expect(Self.lines(try Presets.countdown(.seconds(300))) == ["300 finish: time"])
        let warned = try ProgramSpec.parse("1 x 5:00, warn 1:00")
        #expect(Self.lines(warned) == ["240 warning: one minute", "300 finish: time"])
    }

    @Test func overtimeSaysTimeAtTheCap() throws {
        var plan = IntervalPlan(intervals: [Interval(label: "ROW", length: .seconds(60))])
        plan.overtime = true
        #expect(Self.lines(try plan.program(name: "capped", label: "CAP")) == ["0 start: row", "60 finish: time"])
    }

    @Test func numbersAndLengthsInWords() {
        #expect([0, 1, 13, 20, 42, 70, 99].map(Callouts.words) == ["zero", "one", "thirteen", "twenty", "forty two", "seventy", "ninety nine"])
        #expect(Callouts.words(100) == "100")
        #expect(Callouts.words(.seconds(10)) == "ten seconds")
        #expect(Callouts.words(.seconds(30)) == "thirty seconds")
        #expect(Callouts.words(.seconds(60)) == "one minute")
        #expect(Callouts.words(.seconds(90)) == "one minute thirty seconds")
        #expect(Callouts.words(.seconds(121)) == "two minutes one second")
        #expect(Callouts.words(.milliseconds(500)) == nil)
    }
}
