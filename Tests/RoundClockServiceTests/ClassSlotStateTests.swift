import RoundClockCore
import Testing
@testable import RoundClockService

/// The `start_at` slot a class last started for, in the state file.
@Suite struct ClassSlotStateTests {
    func saved(slot: Duration?) -> SavedSession {
        var s = SavedSession(program: "fgb", runState: .ready, elapsedBefore: .zero, bootID: "0123-abcd", savedRealtime: .seconds(1_795_000_000))
        s.classSlot = slot
        return s
    }

    @Test func theSlotRoundTripsAndIsWrittenOnlyOnceAClassStarted() throws {
        let slot = Duration.seconds(1_795_000_000 + 3600)
        let text = StateFileFormat.encode(saved(slot: slot))
        #expect(text.hasSuffix("class_slot_local_ns=1795003600000000000\n"))
        #expect(try StateFileFormat.decode(text) == saved(slot: slot))
        #expect(!StateFileFormat.encode(saved(slot: nil)).contains("class_slot"), "files without a class have no class_slot line")
        #expect(try StateFileFormat.decode(StateFileFormat.encode(saved(slot: .seconds(-60)))).classSlot == .seconds(-60))
    }

    @Test(arguments: ["x", "", "1e9", "99999999999999999999", "--1", "+5", "12 3"])
    func aBadSlotMakesTheFileCorrupt(_ value: String) {
        let text = StateFileFormat.encode(saved(slot: nil)) + "class_slot_local_ns=\(value)\n"
        #expect(throws: StateFileError.self) { try StateFileFormat.decode(text) }
    }

    @Test func theSessionCarriesTheSlotIntoTheSavedState() {
        var session = Session<WallTime>(program: Presets.fgb)
        session.classSlot = WallTime(hour: 18, minute: 30)
        let saved = SavedSession(session, at: WallTime(hour: 18, minute: 31), bootID: "ab", boottime: .seconds(5), realtime: .seconds(9))
        #expect(saved.classSlot == .seconds(18 * 3600 + 30 * 60))
    }
}
