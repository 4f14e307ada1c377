import Testing
@testable import RoundClockCore

/// The stack light as a pure function of the status, over whole sessions in virtual time.
@Suite struct StackLightTests {
    /// Every change of the stack light from `from` until `until`, stepping from one deadline
    /// to the next as the render loop does, with the signals fired at each step.
    static func lightChanges(_ controller: inout Controller<T>, from: T, until: T) -> [(at: Duration, light: StackLight, signals: [Signal])] {
        var out: [(at: Duration, light: StackLight, signals: [Signal])] = []
        var now = from
        var last: StackLight?
        let wall = WallTime(sinceEpoch: .zero)
        while now <= until {
            let signals = controller.advance(to: now).compactMap { o -> Signal? in
                if case .signal(let s, _) = o { return s } else { return nil }
            }
            let light = StackLight(controller.status(at: now))
            if light != last { out.append((now.offset, light, signals)) }
            last = light
            guard let next = controller.nextDeadline(after: now, wallTime: wall) else { break }
            now = next
        }
        return out
    }

    static let work = StackLight(lamp: .work), rest = StackLight(lamp: .rest), warn = StackLight(lamp: .warn)

    @Test func aBoxingSessionLightsRedGreenYellowRedAndEndsDark() {
        var controller = Controller<T>(program: Presets.boxing)
        _ = controller.perform(.start, at: T(.zero))
        let changes = Self.lightChanges(&controller, from: T(.zero), until: T(.seconds(3000)))
        // prep 0:10, then 12 × (3:00 work with its last 0:10 the warning window, 1:00 rest)
        var expected: [(Duration, StackLight)] = [(.zero, Self.rest)]
        for round in 0..<12 {
            let start = Duration.seconds(10 + 240 * round)
            expected.append((start, Self.work))
            expected.append((start + .seconds(170), Self.warn))
            expected.append((start + .seconds(180), round == 11 ? .off : Self.rest))
        }
        #expect(changes.map(\.at) == expected.map(\.0))
        #expect(changes.map(\.light) == expected.map(\.1))
        // Each change lands on the signal that marks it: start, warning, end, finish.
        let marks = changes.dropFirst().map { $0.signals.filter { $0 != .prepTick } }
        #expect(marks == (0..<12).flatMap { round in [[.start], [.warning], round == 11 ? [.finish] : [.end]] as [[Signal]] })
    }

    @Test func aTabataWithoutWarningNeverLightsYellow() {
        var controller = Controller<T>(program: Presets.tabata)
        _ = controller.perform(.start, at: T(.seconds(5)))
        let changes = Self.lightChanges(&controller, from: T(.seconds(5)), until: T(.seconds(300)))
        var expected: [(Duration, StackLight)] = [(.seconds(5), Self.rest)]
        for round in 0..<8 {
            let start = Duration.seconds(15 + 30 * round)
            expected.append((start, Self.work))
            expected.append((start + .seconds(20), round == 7 ? .off : Self.rest))
        }
        #expect(changes.map(\.at) == expected.map(\.0))
        #expect(changes.map(\.light) == expected.map(\.1))
        #expect(!changes.contains { $0.light.lamp == .warn })
    }

    @Test func pausedBlinksTheLampOfTheMomentAndResumeMakesItSteady() {
        var controller = Controller<T>(program: Presets.boxing)
        _ = controller.perform(.start, at: T(.zero))
        _ = controller.advance(to: T(.seconds(185)))
        #expect(StackLight(controller.status(at: T(.seconds(185)))) == Self.warn)
        _ = controller.perform(.pause, at: T(.seconds(185)))
        let paused = StackLight(controller.status(at: T(.seconds(600))))
        #expect(paused == StackLight(lamp: .warn, blinking: true) && paused.description == "warn (blinking)")
        _ = controller.perform(.resume, at: T(.seconds(600)))
        #expect(StackLight(controller.status(at: T(.seconds(600)))) == Self.warn)
        #expect(StackLight(controller.status(at: T(.seconds(605)))) == Self.rest, "the window ends with the phase")
        _ = controller.perform(.pause, at: T(.seconds(606)))
        #expect(StackLight(controller.status(at: T(.seconds(606)))) == StackLight(lamp: .rest, blinking: true))
        _ = controller.perform(.reset, at: T(.seconds(607)))
        #expect(StackLight(controller.status(at: T(.seconds(607)))) == .off, "ready: dark")
    }

    @Test func readyClockModeAndFinishedAreDark() {
        #expect(StackLight(Status(state: .ready, phase: .prep, round: 0, rounds: 12)) == .off)
        #expect(StackLight(Status(state: .clock, phase: .clock, round: 0, rounds: 0)) == .off)
        #expect(StackLight(Status(state: .finished, phase: .work, round: 12, rounds: 12, warning: true)) == .off)
        #expect(StackLight(Status(state: .running, phase: .prep, round: 0, rounds: 12)) == Self.rest)
        #expect(StackLight.off.description == "off" && !StackLight(lamp: nil, blinking: true).blinking)
    }

    @Test func aSkipIntoTheWindowOrOutOfItIsExact() {
        var controller = Controller<T>(program: Presets.boxing)
        _ = controller.perform(.start, at: T(.zero))
        _ = controller.perform(.skip, at: T(.seconds(1))) // prep skipped: work from 0:01 to 3:01
        #expect(StackLight(controller.status(at: T(.milliseconds(170_999)))) == Self.work)
        #expect(StackLight(controller.status(at: T(.seconds(171)))) == Self.warn, "10 s before the phase's end")
        _ = controller.perform(.skip, at: T(.seconds(175))) // into the rest
        #expect(StackLight(controller.status(at: T(.seconds(175)))) == Self.rest)
    }

    @Test func aWarningAsLongAsTheWorkHasNoWindow() throws {
        // A warning not shorter than the work phase has no signal, so no window either.
        let program = try Program(name: "w", label: "W", phases: [Phase(.work, length: .seconds(5), round: 1)], warning: .seconds(5))
        #expect(!program.signals.contains { $0.signal == .warning })
        var controller = Controller<T>(program: program)
        _ = controller.perform(.start, at: T(.zero))
        #expect(StackLight(controller.status(at: T(.seconds(1)))) == Self.work)
    }
}
