import RoundClockCore
import Testing
@testable import RoundClockService

/// The service group names each service by describing it (`"\(service)"`), and the render
/// service's default description would reflect the whole MODE catalog: start-up time would
/// grow with the number of `[programs]`. Deterministic, not timed: the name must not grow
/// with the catalog.
@Suite struct ServiceNameTests {
    @Test func renderServiceNameDoesNotDescribeTheCatalog() throws {
        func name(programs: Int) throws -> String {
            let custom = try (0..<programs).map { i in
                try Program(name: "p\(i)", label: "CUST", phases: Presets.boxing.phases, warning: Presets.boxing.warning)
            }
            let clock = VirtualClock()
            let loop = RenderLoop(waiter: VirtualTimeWaiter(clock: clock), start: clock.now, display: emulatedBoard(), observer: Observers(Recorder()),
                                  wallTime: { _ in WallTime(sinceEpoch: .zero) }, stop: .never)
            let controller = Controller<VirtualClock.Instant>(program: Presets.boxing, catalog: Presets.cycle + custom)
            // What ServiceGroupConfiguration.ServiceConfiguration(service:) computes as the service's name.
            return "\(RenderService(loop: loop, controller: controller) { _ in })"
        }
        let one = try name(programs: 1)
        let thousand = try name(programs: 1000)
        #expect(thousand.count <= one.count + 3, "\(one) / \(thousand)")
        #expect(thousand.count < 100 && !thousand.contains("phases"), "\(thousand)")
    }
}
