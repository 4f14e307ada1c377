import Platform
import RoundClockCore
import Synchronization
import Testing
import TestSupport
@testable import LinuxHardware

/// The reader hands `ButtonEvent`s to its sink: the edge's button, press or release, and the
/// kernel timestamp placed on the loop's clock by the mapping it was given.
@Suite struct ButtonEventDeliveryTests {
    typealias Instant = ManualClock.Instant
    /// A mapping a test can compute by hand: T ns of CLOCK_MONOTONIC is the instant T ns.
    static let mapped: @Sendable (UInt64) -> Instant = { Instant(offset: .nanoseconds(Int64($0))) }

    @Test func anEdgeAtKernelTimeTBecomesAnEventAtTheMappedInstant() {
        let events = Mutex([ButtonEvent<Instant>]())
        let handler = ButtonReader.events(placedBy: Self.mapped, to: { event in events.withLock { $0.append(event) } })
        handler(.start, true, 1_000_000_000)
        handler(.start, false, 1_250_000_000)
        handler(.stop, true, 2_000_000_000)
        #expect(events.withLock { $0 } == [
            ButtonEvent(.start, .press, at: Self.mapped(1_000_000_000)),
            ButtonEvent(.start, .release, at: Self.mapped(1_250_000_000)),
            ButtonEvent(.stop, .press, at: Self.mapped(2_000_000_000)),
        ])
    }

    @Test func theReaderDeliversEventsStampedWithTheLineTimestamp() async throws {
        let start = PipeLine("start-line"), stop = PipeLine("stop-line")
        let events = Mutex([ButtonEvent<Instant>]())
        let reader = ButtonReader(lines: [(.start, start), (.stop, stop)], lockout: .zero, onFailure: { _ in },
                                  handler: ButtonReader.events(placedBy: Self.mapped, to: { event in events.withLock { $0.append(event) } }))
        let loop = try EventLoop(name: "test-delivery")
        defer { loop.finish() }
        reader.start(on: loop)
        defer { reader.stop() }
        let before = Self.mapped(monotonicNanoseconds())
        stop.send("p")
        #expect(await eventually { events.withLock { $0.count } == 1 })
        let after = Self.mapped(monotonicNanoseconds())
        let event = try #require(events.withLock { $0.first })
        #expect(event.button == .stop && event.edge == .press)
        #expect(event.at >= before && event.at <= after, "the line's CLOCK_MONOTONIC stamp, mapped")
        stop.send("r")
        #expect(await eventually { events.withLock { $0.count } == 2 })
        #expect(events.withLock { $0.map(\.edge) } == [.press, .release])
    }
}
