import RoundClockCore
import Sound
import Synchronization

/// The voice's callouts (`Callouts.plan`) as sounds, per program, rendered off the render
/// loop: `prepare` hands a program not seen before to `schedule` (a worker thread's queue)
/// and returns at once; until its table is ready `sound` finds nothing, so the loop never
/// waits for a voice. A phrase said by several programs ("time", "rest") is rendered once.
public final class CalloutSounds: Sendable {
    /// A phrase as a sound, ready to play (volume and rate applied); nil when it cannot be.
    public typealias Render = @Sendable (String) -> PCM?
    /// Runs a job, under the program's name, away from the loop.
    public typealias Schedule = @Sendable (String, @escaping @Sendable () -> Void) -> Void

    /// Programs whose tables are kept; a program beyond them replaces the least recent.
    static let keptPrograms = 8

    private struct Key: Hashable {
        var offset: Duration
        var signal: Signal
    }

    private struct Tables {
        /// Ready tables, by program name, least recently prepared first.
        var ready: [(name: String, sounds: [Key: PCM])] = []
        /// Names handed to `schedule` and not yet ready.
        var pending: Set<String> = []
        var phrases: [String: PCM] = [:]
        var onReady: (@Sendable (String) -> Void)?
    }

    private let render: Render
    private let schedule: Schedule
    private let tables = Mutex(Tables())

    public init(render: @escaping Render, schedule: @escaping Schedule) {
        self.render = render
        self.schedule = schedule
    }

    /// Called with a program's name once its table is ready (on the worker's thread).
    public func whenReady(_ body: @escaping @Sendable (String) -> Void) {
        tables.withLock { $0.onReady = body }
    }

    /// Starts rendering `program`'s callouts unless they are ready or under way.
    public func prepare(_ program: Program) {
        let name = program.name
        let isNew = tables.withLock { tables -> Bool in
            if let index = tables.ready.firstIndex(where: { $0.name == name }) {
                tables.ready.append(tables.ready.remove(at: index))
                return false
            }
            return tables.pending.insert(name).inserted
        }
        guard isNew else { return }
        schedule(name) { [self] in renderTable(of: program) }
    }

    /// The callout at `program`'s signal point (`offset`, `signal`), if its table is ready.
    public func sound(program: String, offset: Duration, signal: Signal) -> PCM? {
        tables.withLock { tables in
            tables.ready.last { $0.name == program }?.sounds[Key(offset: offset, signal: signal)]
        }
    }

    private func renderTable(of program: Program) {
        var sounds: [Key: PCM] = [:]
        for callout in Callouts.plan(for: program) {
            guard let pcm = phrase(callout.phrase) else { continue }
            sounds[Key(offset: callout.offset, signal: callout.signal)] = pcm
        }
        let onReady = tables.withLock { tables in
            tables.pending.remove(program.name)
            tables.ready.append((name: program.name, sounds: sounds))
            if tables.ready.count > Self.keptPrograms { tables.ready.removeFirst() }
            return tables.onReady
        }
        onReady?(program.name)
    }

    private func phrase(_ text: String) -> PCM? {
        if let pcm = tables.withLock({ $0.phrases[text] }) { return pcm }
        guard let pcm = render(text) else { return nil }
        tables.withLock { $0.phrases[text] = pcm }
        return pcm
    }
}
