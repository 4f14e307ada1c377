import Testing
@testable import RoundClockCore

/// Programs saved or deleted while the clock runs: MODE cycles the new catalog; a ready
/// clock takes the new version of the program it shows; a session underway keeps its own.
@Suite struct CatalogChangeTests {
    func custom(_ name: String, work: Int) throws -> Program {
        try ProgramSpec.parse("3 x 0:\(work)/0:10").named(name)
    }

    func mode(_ c: inout Controller<T>, at t: Double) {
        _ = c.handle(ButtonEvent(.mode, .press, at: .s(t)))
        _ = c.handle(ButtonEvent(.mode, .release, at: .s(t + 0.1)))
    }

    @Test func modeCyclesTheNewCatalog() throws {
        var c = Controller<T>(program: Presets.boxing, catalog: [Presets.boxing, Presets.tabata])
        _ = c.replaceCatalog([Presets.boxing, Presets.tabata, try custom("hiit", work: 40)], at: .s(1))
        mode(&c, at: 2)
        mode(&c, at: 3)
        #expect(c.program.name == "hiit")
        mode(&c, at: 4)
        #expect(c.program.name == "boxing")
    }

    @Test func aReadyClockTakesTheSavedVersionOfItsProgram() throws {
        let old = try custom("hiit", work: 40), new = try custom("hiit", work: 50)
        var c = Controller<T>(program: old, catalog: [Presets.boxing, old])
        let out = c.replaceCatalog([Presets.boxing, new], at: .s(1))
        #expect(actions(out) == [.program("hiit")])
        #expect(c.program == new)
        #expect(actions(c.replaceCatalog([Presets.boxing, new], at: .s(2))).isEmpty, "the same version: nothing changes")
    }

    @Test func aReadyClockShowingADeletedProgramShowsTheFirst() throws {
        let hiit = try custom("hiit", work: 40)
        var c = Controller<T>(program: hiit, catalog: [Presets.boxing, hiit])
        #expect(actions(c.replaceCatalog([Presets.boxing], at: .s(1))) == [.program("boxing")])
        // A DSL line was never in the catalog: it stays.
        let line = try ProgramSpec.parse("3 x 0:20/0:10")
        var d = Controller<T>(program: line, catalog: [Presets.boxing, hiit])
        #expect(actions(d.replaceCatalog([Presets.boxing], at: .s(1))).isEmpty && d.program == line)
    }

    @Test func aSessionUnderwayKeepsItsProgram() throws {
        let old = try custom("hiit", work: 40), new = try custom("hiit", work: 50)
        var c = Controller<T>(program: old, catalog: [Presets.boxing, old])
        _ = c.perform(.start, at: .s(0))
        #expect(actions(c.replaceCatalog([Presets.boxing, new], at: .s(1))).isEmpty)
        #expect(c.program == old)
        #expect(c.catalog.last == new)
    }
}
