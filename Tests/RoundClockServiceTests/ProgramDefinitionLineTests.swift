import ControlProtocol
import RoundClockCore
import Testing
@testable import RoundClockService

/// The state line carries the running program itself (docs/control-protocol.md "The
/// program's definition"): on the first line, on a subscriber's first line, and on the line
/// after each change of the program, also a save over the program shown under its name.
@Suite struct ProgramDefinitionLineTests {
    @Test func theProgramIsOnAFirstLineAndOnEachChangeOnly() async throws {
        let rig = try SharingLoop(until: .seconds(4))
        let (clock, start, hub, inbox) = (rig.clock, rig.start, rig.hub, rig.inbox)
        let first = try ProgramSpec.parse("3 x 0:20/0:10").named("x")
        let savedOver = try ProgramSpec.parse("2 x 0:07/0:03").named("x")
        inbox.post(.start, at: start)
        // A reset, then the editor's save of another `x` while `x` is shown.
        clock.at(start.advanced(by: .seconds(2))) {
            inbox.post(.reset, at: start.advanced(by: .seconds(2)))
            inbox.post(.catalog(Presets.cycle + [savedOver], at: start.advanced(by: .seconds(2))))
        }
        #expect(hub.subscribe() == nil)
        _ = await rig.loop.run(Controller<VirtualClock.Instant>(program: first, catalog: Presets.cycle + [first]))

        let lines = hub.take().states.map(\.line)
        let read = lines.compactMap(ControlState.parse)
        #expect(read.count == lines.count && lines.count == 3, "0:20, 0:19, then ready: \(lines)")
        let carrying = read.indices.filter { read[$0].definition != nil }
        #expect(carrying.count == 2 && carrying.first == 0, "\(lines)")
        #expect(read.first?.definition == first && read.first?.state == "running")
        let change = try #require(carrying.last)
        #expect(read[change].definition == savedOver && read[change].state == "ready", "\(lines)")
        #expect(read[change].panels.first { $0.role == "time" }?.text == " 0:07", "the new first work phase")

        // A subscriber's first line names the program shown now, however long ago it changed.
        let late = try #require(hub.subscribe())
        #expect(late.definition == savedOver)
        #expect(ControlState.parse(late.line)?.definition == savedOver)
    }
}
