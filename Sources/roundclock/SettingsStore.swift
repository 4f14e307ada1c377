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

/// The setup page's settings (`SettingsLayer`) in the state directory's `settings.toml`, laid
/// over the config file, and the control socket's `settings` requests. Requests run one at a
/// time on the worker thread: a change is checked with `check-config`'s checker against the
/// config file as it is now, written atomically, handed to the render loop and only then
/// answered. A change of the board waits for the clock's next start, and the replies say so.
final class SettingsStore: Sendable {
    typealias DurableWrite = @Sendable (_ text: String, _ path: String, _ temp: String, _ directory: String) throws(SystemError) -> Void

    /// Where `settings.toml` lives; `nil`: no state directory, nothing can be saved.
    let directory: String?
    /// The config file below the layer; `nil`: none (the built-in defaults).
    let configPath: String?
    private let logger: Logger
    private let write: DurableWrite
    private let current: Mutex<Current>
    private let run = Mutex<@Sendable (String, @escaping @Sendable () -> Void) -> Void>({ _, job in job() })
    private let publish = Mutex<@Sendable (ClockSettings) -> Void>({ _ in })
    /// What the running clock adds to a config (`--brightness`, the saved programs).
    private let adjust: Mutex<@Sendable (Config) -> Config>
    private let jobs = Atomic<Int>(0)
    /// A program saved from the editor, by name (`ProgramLibrary`): the page may make one the
    /// program at start, which the config file alone does not know.
    private let savedProgram: @Sendable (String) -> Program?

    struct Current {
        var layer = SettingsLayer()
        /// The config the clock runs with now (the file, the layer, `adjust`).
        var config: Config?
        /// The board the clock started with: a layer naming another waits for the next start.
        var startBoard: BoardSource?
        /// Why the saved layer was left out at start (it no longer fits the config file).
        var refused: String?
    }

    var path: String? { directory.map { "\($0)/\(SettingsLayer.fileName)" } }
    private var configFile: String { configPath ?? Config.defaults().file }

    /// Reads `settings.toml` from `directory`: one that cannot be read is one logged line,
    /// set aside (`settings.toml.corrupt`, ...), and the clock starts without it.
    init(directory: String?, configPath: String?, logger: Logger,
         adjust: @escaping @Sendable (Config) -> Config = { $0 },
         savedProgram: @escaping @Sendable (String) -> Program? = { _ in nil },
         write: @escaping DurableWrite = { text, path, temp, directory throws(SystemError) in
             try DurableFiles.writeAtomically(text, path: path, temp: temp, directory: directory)
         }) {
        self.directory = directory
        self.configPath = configPath
        self.logger = logger
        self.write = write
        self.adjust = Mutex(adjust)
        self.savedProgram = savedProgram
        self.current = Mutex(Current())
        if let path { current.withLock { $0.layer = load(path) } }
    }

    /// The config the clock starts with: the file with the layer over it. A layer the file
    /// no longer takes (its board file gone, a value the file's other keys refuse) is left
    /// out, with one logged line; an error of the file itself is thrown, as `check-config`'s.
    func startingConfig() throws(ConfigError) -> Config {
        let text = try configText()
        let layer = current.withLock { $0.layer }
        var config: Config
        do throws(ConfigError) {
            config = try merged(text, layer, layerFile: path ?? SettingsLayer.pageSource)
            do throws(ConfigError) {
                if layer.value("board") != nil { _ = try config.loadBoard() }
            } catch {
                throw layer.naming(error, as: path ?? SettingsLayer.pageSource)
            }
        } catch where !layer.keyPaths.isEmpty && error.file != configFile {
            logger.warning("settings: \(error); the setup page's settings are left out until they are changed or reset")
            current.withLock { $0.refused = error.description }
            config = try Config.parse(text, file: configFile)
        }
        let adjusted = adjust.withLock { $0 }(config)
        current.withLock {
            $0.config = adjusted
            $0.startBoard = adjusted.board
        }
        return adjusted
    }

    /// Requests run on `worker` from now on; changed settings go to `publish`; `adjust` is
    /// what the running clock adds to every config.
    func attach(worker: BlockingWorker?, adjust: @escaping @Sendable (Config) -> Config,
                publish: @escaping @Sendable (ClockSettings) -> Void) {
        if let worker { run.withLock { $0 = { key, job in worker.post(key, job) } } }
        self.adjust.withLock { $0 = adjust }
        self.publish.withLock { $0 = publish }
    }

    /// Carries out `request` and answers it through `reply` (one line).
    func handle(_ request: SettingsEdit, reply: @escaping @Sendable (String) -> Void) {
        let key = "settings \(jobs.add(1, ordering: .relaxed).newValue)"
        let job: @Sendable () -> Void = { [self] in
            switch request {
            case .show: reply(shown())
            case .set(let values): reply(set(values))
            case .reset: reply(store(SettingsLayer(), word: request.word))
            }
        }
        run.withLock { $0 }(key, job)
    }

    private func set(_ values: [JSONMember]) -> String {
        var next = current.withLock { $0.layer }
        do throws(ConfigError) {
            for member in values {
                next = try next.setting(member.key, to: try SettingsJSON.toml(member.value, key: member.key))
            }
        } catch {
            return ControlReply.failed(error.description).line
        }
        return store(next, word: "settings-set")
    }

    /// Checks `next` over the config file, writes it (removes the file when empty), makes it
    /// the clock's, and answers with the settings as `settings` does.
    private func store(_ next: SettingsLayer, word: String) -> String {
        guard let directory, let path else {
            return ControlReply.failed("\(word): this clock has no state directory to keep settings in (run --state-dir DIR)").line
        }
        let config: Config
        do {
            config = adjust.withLock { $0 }(try merged(try configText(), next, layerFile: SettingsLayer.pageSource))
            _ = try CheckConfig.check(config, devices: false)
        } catch {
            return ControlReply.failed(next.naming(error, as: SettingsLayer.pageSource).description).line
        }
        do throws(SystemError) {
            try DurableFiles.prepareDirectory(directory)
            if next.keyPaths.isEmpty {
                try DurableFiles.remove(path, directory: directory)
            } else {
                try write(next.text, path, "\(directory)/.\(SettingsLayer.fileName).tmp", directory)
            }
        } catch {
            logger.error("settings: cannot save \(path): \(error)")
            return ControlReply.failed("\(word): cannot write \(path): \(error)").line
        }
        let previous = current.withLock { current in
            defer {
                current.layer = next
                current.config = config
                current.refused = nil
            }
            return current.config
        }
        if let previous { publish.withLock { $0 }(config.clockSettings(since: previous)) }
        logger.info("settings: \(next.keyPaths.isEmpty ? "the setup page's settings are reset" : "\(path) sets \(next.keyPaths.joined(separator: ", "))")")
        return shown()
    }

    /// `{"ok": true, "settings": {the page's}, "values": {each key's value now}, "effects":
    /// {key: "live" | "when-idle"}}`, with `pending` when the board waits for the next
    /// start and `refused` when the saved settings were left out at start.
    private func shown() -> String {
        let now = current.withLock { $0 }
        var members = [
            JSONMember("ok", .bool(true)),
            JSONMember("settings", SettingsJSON.object(now.layer.keyPaths.compactMap { key in now.layer.value(key).map { (key, $0) } })),
        ]
        if let config = now.config { members.append(JSONMember("values", SettingsJSON.object(config.settingsValues))) }
        members.append(JSONMember("effects", .object(SettingsLayer.keys.map { JSONMember($0.key, .string($0.value.rawValue)) })))
        if let config = now.config, let start = now.startBoard, config.board != start {
            members.append(JSONMember("pending", .string("the board \(config.board) is used from the clock's next start; it runs on \(start) until then")))
        }
        if let refused = now.refused { members.append(JSONMember("refused", .string(refused))) }
        return JSONValue.object(members).encoded
    }

    /// The config file's `text` with `layer` over it; a `program` naming a program saved from
    /// the editor is that program.
    private func merged(_ text: String, _ layer: SettingsLayer, layerFile: String) throws(ConfigError) -> Config {
        guard let name = layer.value("program")?.string, let saved = savedProgram(name) else {
            return try Config.parse(text, file: configFile, layer: layer, layerFile: layerFile)
        }
        var config = try Config.parse(text, file: configFile, layer: try layer.setting("program", to: nil), layerFile: layerFile)
        config.program = saved
        return config
    }

    private func configText() throws(ConfigError) -> String {
        guard let configPath else { return "" }
        return try readTextFile(configPath)
    }

    private func load(_ path: String) -> SettingsLayer {
        do {
            return try SettingsLayer.read(path)
        } catch {
            setAside(path, because: error.description)
            return SettingsLayer()
        }
    }

    private func setAside(_ path: String, because why: String) {
        switch DurableFiles.setAside(path) {
        case .success(let target): logger.warning("settings: \(why); set aside as \(target); starting with the config file alone")
        case .failure(let error): logger.error("settings: \(why); cannot set it aside (\(error)); starting with the config file alone")
        }
    }
}
