import ArgumentParser
import Platform
import RoundClockConfig
import RoundClockService
import Speaker
#if canImport(Glibc)
import Glibc
#endif

/// `roundclock check-config [PATH]`: validates a configuration file and the board it names
/// without touching any hardware. Exit 0 with a summary, or 78 (EX_CONFIG) with one message.
/// The summary says, after the line on shutdown and resume, whether the state directory can
/// be written; one that cannot is no error (the clock runs without keeping the session).
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a configuration file (and its board file) without touching hardware.",
        discussion: "Exits 0 and prints a summary, or exits 78 (EX_CONFIG) with one message naming the file, the line or key, the bad value and what is allowed. The setup page's settings in the state directory are laid over the file, as the clock does; the summary ends with each setting and the file it comes from. Its state: line says whether this user can write the state directory.")

    @Argument(help: "The configuration file.")
    var path: String = Config.defaultPath

    @Option(help: "The state directory to check (default: $STATE_DIRECTORY or /var/lib/roundclock).")
    var stateDir: String?

    func run() throws {
        do throws(ConfigError) {
            let directory = StateStore(directory: stateDir ?? StateStore.defaultDirectory()).directory
            let layerFile = "\(directory)/\(SettingsLayer.fileName)"
            let (layer, layerNote) = Self.settingsLayer(layerFile)
            let text = try readTextFile(path)
            let config = try Config.parse(text, file: path, layer: layer, layerFile: layerFile)
            let board: Board
            do throws(ConfigError) { board = try Self.check(config, devices: true) } catch { throw layer.naming(error, as: layerFile) }
            var lines = config.summary(board: board).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let resume = lines.firstIndex { $0.hasPrefix("on shutdown: ") }.map { $0 + 1 } ?? lines.endIndex
            lines.insert(Self.stateLine(directory), at: resume)
            lines.append(layerNote ?? "settings: \(path)\(layer.keyPaths.isEmpty ? "" : ", then the setup page's \(layerFile)"); each from:")
            lines += try Config.sources(fileText: text, file: path, layer: layer, layerFile: layerFile)
            lines.append("  every other setting: the built-in default")
            print(lines.joined(separator: "\n"))
        } catch {
            printError(error.description)
            throw ExitCode(ConfigError.exitCode)
        }
    }

    /// What the checker asks beyond the file itself: the board file, the voice and, with
    /// `devices`, the speaker (`apply-card` checks at boot, before the sound card is there).
    static func check(_ config: Config, devices: Bool) throws(ConfigError) -> Board {
        let board = try config.loadBoard()
        if devices { try checkSpeaker(config) }
        if config.voice.enabled { _ = try VoiceSetup.voice(config.voice, file: config.file) }
        return board
    }

    /// With `[sound] enabled`: the device opens as the speaker opens it (one in use by the
    /// running clock, EBUSY, is there) and the mixer control exists.
    static func checkSpeaker(_ config: Config) throws(ConfigError) {
        let sound = config.sound
        guard sound.enabled else { return }
        do {
            try ALSADevice.check(sound.device, rate: sound.rate)
        } catch where error.errno != EBUSY {
            throw ConfigError(file: config.file, location: "sound.device", message: error.description)
        } catch {}
        guard let mixer = sound.mixer else { return }
        do {
            try ALSAMixer.set(mixer, device: sound.device, percent: nil)
        } catch {
            throw ConfigError(file: config.file, location: "sound.mixer", message: error.description)
        }
    }

    /// The setup page's settings in the state directory, and a line when they cannot be read
    /// (then the file is checked alone, as the clock would start).
    static func settingsLayer(_ file: String) -> (SettingsLayer, String?) {
        do {
            return (try SettingsLayer.read(file), nil)
        } catch {
            switch error {
            case .unreadable(let why): return (SettingsLayer(), "settings: the setup page's \(file) cannot be read (\(why)); the file alone, each from:")
            case .invalid(let why): return (SettingsLayer(), "settings: \(why); the clock sets it aside; the file alone, each from:")
            }
        }
    }

    /// `state: DIR writable`, `state: DIR missing; run creates it`, or `state: DIR not
    /// writable (WHY): ...`; changes nothing.
    static func stateLine(_ directory: String) -> String {
        do throws(SystemError) {
            return try DurableFiles.checkDirectory(directory)
                ? "state: \(directory) writable" : "state: \(directory) missing; run creates it"
        } catch {
            return "state: \(directory) not writable (\(error)): the clock will run without keeping the session"
        }
    }
}
