#if canImport(Glibc)
import Glibc
#endif
import ControlProtocol
import JSON
import Logging
import Platform
import RoundClockConfig
import RoundClockCore
import RoundClockService
import Synchronization

/// The programs saved from the phone page's editor (`SavedPrograms`), in the state
/// directory's `programs.toml`, and the control socket's editor requests (`ProgramEdit`).
/// Requests run one at a time on the worker thread (the loop never waits for a disk): a
/// save is checked, written atomically, then posted to the loop as the new MODE catalog
/// and only then answered. The config file's programs cannot be changed here.
final class ProgramLibrary: Sendable {
    typealias DurableWrite = @Sendable (_ text: String, _ path: String, _ temp: String, _ directory: String) throws(SystemError) -> Void

    /// Where `programs.toml` lives; `nil`: no state directory, nothing can be saved.
    let directory: String?
    /// The config file's `[programs]`: they win over a saved program of the same name.
    let configured: [Program]
    private let logger: Logger
    private let write: DurableWrite
    private let saved: Mutex<SavedPrograms>
    /// Runs a request's job: the worker thread's `post`, or at once without one.
    private let run: Mutex<@Sendable (String, @escaping @Sendable () -> Void) -> Void>
    /// Hands the new MODE catalog to the render loop.
    private let publish: Mutex<@Sendable ([Program]) -> Void>
    private let jobs = Atomic<Int>(0)

    var path: String? { directory.map { "\($0)/\(SavedPrograms.fileName)" } }

    /// Reads `programs.toml` from `directory`. A file that cannot be used is one logged line
    /// naming it and is set aside (`programs.toml.corrupt`, `-2`, ...): the clock starts
    /// with the programs in it that read on their own (written back), or with none.
    init(directory: String?, configured: [Program], logger: Logger,
         write: @escaping DurableWrite = { text, path, temp, directory throws(SystemError) in
             try DurableFiles.writeAtomically(text, path: path, temp: temp, directory: directory)
         }) {
        self.directory = directory
        self.configured = configured
        self.logger = logger
        self.write = write
        self.run = Mutex({ _, job in job() })
        self.publish = Mutex({ _ in })
        self.saved = Mutex(SavedPrograms())
        if let path { saved.withLock { $0 = load(path) } }
    }

    /// Requests run on `worker` from now on; new catalogs go to `publish`.
    func attach(worker: BlockingWorker?, publish: @escaping @Sendable ([Program]) -> Void) {
        if let worker { run.withLock { $0 = { key, job in worker.post(key, job) } } }
        self.publish.withLock { $0 = publish }
    }

    /// The config file's programs and the saved ones (not those the config shadows), in name order.
    var programs: [Program] {
        let names = Set(configured.map(\.name))
        return (configured + saved.withLock { $0.programs }.filter { !names.contains($0.name) }).sorted { $0.name < $1.name }
    }

    /// The saved program `name` (none when the config file has one of that name, which wins).
    @Sendable func savedProgram(_ name: String) -> Program? {
        guard !configured.contains(where: { $0.name == name }) else { return nil }
        return saved.withLock { $0.programs.first { $0.name == name } }
    }

    /// `config` with the saved programs among its `[programs]`.
    func merged(_ config: Config) -> Config {
        var merged = config
        merged.programs = programs
        return merged
    }

    /// Carries out `request` and answers it through `reply` (one line). `state` reads the
    /// clock's current state when the job runs, so the program underway is never changed.
    func handle(_ request: ProgramEdit, state: @escaping @Sendable () -> ControlState?, reply: @escaping @Sendable (String) -> Void) {
        let key = "programs \(jobs.add(1, ordering: .relaxed).newValue)"
        let job: @Sendable () -> Void = { [self] in
            switch request {
            case .check(let toml): reply(check(toml))
            case .save(let toml): reply(save(toml, state: state()))
            case .delete(let name): reply(delete(name, state: state()))
            case .list: reply(list())
            }
        }
        run.withLock { $0 }(key, job)
    }

    private func check(_ toml: String) -> String {
        do {
            let program = try SavedPrograms.check(toml)
            return ProgramReplies.ok(["program": ProgramReplies.json(program)])
        } catch {
            return ControlReply.failed(error.description).line
        }
    }

    private func save(_ toml: String, state: ControlState?) -> String {
        guard let directory, let path else {
            return ControlReply.failed("program-save: this clock has no state directory to keep programs in (run --state-dir DIR)").line
        }
        let current = saved.withLock { $0 }
        let next: (saved: SavedPrograms, program: Program)
        do { next = try current.saving(toml, configured: configured) } catch {
            return ControlReply.failed(error.description).line
        }
        if let why = underway(next.program.name, state: state, word: "program-save") { return ControlReply.failed(why).line }
        if let why = store(next.saved, directory: directory, path: path, word: "program-save") { return ControlReply.failed(why).line }
        guard let replaced = current.programs.first(where: { $0.name == next.program.name }) else {
            return ProgramReplies.ok(["program": ProgramReplies.json(next.program)])
        }
        return ProgramReplies.ok(["program": ProgramReplies.json(next.program), "replaced": ProgramReplies.replaced(replaced)])
    }

    private func delete(_ name: String, state: ControlState?) -> String {
        guard let directory, let path else {
            return ControlReply.failed("program-delete: this clock has no state directory; nothing is saved").line
        }
        let current = saved.withLock { $0 }
        guard let next = current.deleting(name) else {
            let known = current.programs.map(\.name)
            let hint = configured.contains { $0.name == name } ? "is a program of the config file, which the editor cannot delete"
                : "is not a saved program" + (known.isEmpty ? " (none is saved)" : " (saved: \(known.joined(separator: ", ")))")
            return ControlReply.failed("program-delete: \(JSONValue.quoted(name)) \(hint)").line
        }
        if let why = underway(name, state: state, word: "program-delete") { return ControlReply.failed(why).line }
        if let why = store(next, directory: directory, path: path, word: "program-delete") { return ControlReply.failed(why).line }
        return ControlReply.ok.line
    }

    private func list() -> String {
        let current = saved.withLock { $0 }
        let names = Set(configured.map(\.name))
        var entries: [JSONValue] = configured.map { ProgramReplies.listed($0, source: "config", toml: nil) }
        for program in current.programs {
            var entry = ProgramReplies.listed(program, source: "saved", toml: current.snippets[program.name])
            if names.contains(program.name), case .object(var members) = entry {
                members.append(JSONMember("shadowed", .bool(true)))
                entry = .object(members)
            }
            entries.append(entry)
        }
        return ProgramReplies.ok(["programs": .array(entries), "limits": .object([
            JSONMember("programs", .int(SavedPrograms.maxPrograms)), JSONMember("bytes", .int(SavedPrograms.maxBytes)),
        ])])
    }

    /// Why `name` cannot be changed now: it is the program of a session underway.
    private func underway(_ name: String, state: ControlState?, word: String) -> String? {
        guard let state, state.program == name, state.state != "ready", state.state != "clock" else { return nil }
        return "\(word): \(name) is the program underway (the clock is \(state.state)); reset the clock first (hold STOP)"
    }

    /// Writes `next`, then makes it the saved programs and the loop's catalog. On a write
    /// error nothing changes: the error is the reply (and a log line).
    private func store(_ next: SavedPrograms, directory: String, path: String, word: String) -> String? {
        do throws(SystemError) {
            try DurableFiles.prepareDirectory(directory)
            try write(next.text, path, "\(directory)/.\(SavedPrograms.fileName).tmp", directory)
        } catch {
            logger.error("programs: cannot save \(path): \(error)")
            return "\(word): cannot write \(path): \(error)"
        }
        saved.withLock { $0 = next }
        let catalog = programs
        publish.withLock { $0 }(catalog)
        logger.info("programs: \(path) holds \(next.programs.count) saved programs")
        return nil
    }

    private func load(_ path: String) -> SavedPrograms {
        let read: String
        do throws(SystemError) {
            read = try SmallFiles.readText(path, limit: SavedPrograms.maxBytes, followSymlinks: false)
        } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR, error.operation == "open" { return SavedPrograms() }
            setAside(path, because: error.description)
            return SavedPrograms()
        }
        let text = renamingPresetNames(read, path: path)
        var loaded: SavedPrograms
        do {
            loaded = try SavedPrograms.load(text, file: path)
        } catch {
            loaded = salvage(text, path: path, because: error)
        }
        for name in loaded.programs.map(\.name) where configured.contains(where: { $0.name == name }) {
            logger.warning("programs: \(path): \(name) is also in the config file; the config's is used")
        }
        return loaded
    }

    /// `text` with each program named as a preset renamed (`SavedPrograms.renamingPresetNames`),
    /// one logged line each, and written back: the preset keeps its name, the program is kept.
    private func renamingPresetNames(_ text: String, path: String) -> String {
        let (renamedText, renamed) = SavedPrograms.renamingPresetNames(text, taken: configured.map(\.name))
        guard !renamed.isEmpty, let directory else { return text }
        for (from, to) in renamed {
            logger.warning("programs: \(path): \(from) is a preset's name; the saved program is renamed \(to)")
        }
        do throws(SystemError) {
            try write(renamedText, path, "\(directory)/.\(SavedPrograms.fileName).tmp", directory)
        } catch {
            logger.error("programs: cannot write \(path) back: \(error); the renamed programs are kept until the next start")
        }
        return renamedText
    }

    /// A file that does not read as a whole: it is set aside as it is, and the programs that
    /// read on their own are written back, so one bad program never loses the others.
    private func salvage(_ text: String, path: String, because error: ConfigError) -> SavedPrograms {
        let (kept, refused) = SavedPrograms.salvage(text, file: path)
        guard !kept.programs.isEmpty, let directory else {
            setAside(path, because: error.description, keeping: 0)
            return SavedPrograms()
        }
        for problem in refused { logger.warning("programs: \(problem.description); not loaded") }
        guard setAside(path, because: error.description, keeping: kept.programs.count) else { return SavedPrograms() }
        do throws(SystemError) {
            try write(kept.text, path, "\(directory)/.\(SavedPrograms.fileName).tmp", directory)
        } catch {
            logger.error("programs: cannot write \(path) back: \(error); its \(kept.programs.count) programs are kept until the next start")
        }
        return kept
    }

    /// Renames the file at `path` out of the way; whether it did.
    @discardableResult
    private func setAside(_ path: String, because why: String, keeping kept: Int = 0) -> Bool {
        let starting = kept == 0 ? "starting with no saved programs" : "starting with the \(kept) programs that read on their own"
        switch DurableFiles.setAside(path) {
        case .success(let target):
            logger.warning("programs: \(why); set aside as \(target); \(starting)")
            return true
        case .failure(let error):
            logger.error("programs: \(why); cannot set it aside (\(error)); starting with no saved programs")
            return false
        }
    }
}
