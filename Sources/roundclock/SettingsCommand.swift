import ArgumentParser
import CommandLineSupport
import ControlProtocol
import JSON
import Platform
import RoundClockConfig
import RoundClockService
#if canImport(Glibc)
import Glibc
#endif

/// `roundclock settings show|reset`: the setup page's settings (docs/configuration.md "The
/// setup page's settings"), through the running clock's control socket, or in its state
/// directory when no clock listens.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or drop the settings saved from the phone's setup page.",
        discussion: "show prints each setting the page saved; reset drops them all, so the config file alone counts again. A running clock takes the reset at once, through its control socket; with no clock listening, the file is removed from the state directory.",
        subcommands: [Show.self, Reset.self])

    struct Where: ParsableArguments {
        @Option(help: "The running clock's control socket (default: /run/roundclock/control.sock).")
        var control = "/run/roundclock/\(ControlLimits.socketName)"

        @Option(help: "The state directory, when no clock listens (default: $STATE_DIRECTORY or /var/lib/roundclock).")
        var stateDir: String?

        var directory: String { StateStore(directory: stateDir ?? StateStore.defaultDirectory()).directory }
        var file: String { "\(directory)/\(SettingsLayer.fileName)" }

        /// The clock's reply to `request`, or `nil` when no clock listens at `control`.
        func ask(_ request: SettingsEdit) throws -> JSONValue? {
            let reply: String?
            do throws(SystemError) {
                let connection = try LineConnection(path: control)
                reply = try connection.request(ControlRequest.settings(request).line)
            } catch where error.errno == ENOENT || error.errno == ECONNREFUSED {
                return nil
            } catch {
                printError("settings: \(error)")
                throw ExitCode(ExitStatus.unavailable)
            }
            guard let reply, let value = try? JSONParser(maxBytes: ControlLimits.maxReplyBytes).parse(reply) else {
                printError("settings: \(control): no reply")
                throw ExitCode(ExitStatus.unavailable)
            }
            if case .bool(false)? = value["ok"] {
                printError("settings: \(value["error"]?.string ?? "refused")")
                throw ExitCode(ExitStatus.software)
            }
            return value
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the settings saved from the setup page, one `key = value` a line.")
        @OptionGroup var place: Where

        func run() throws {
            if let reply = try place.ask(.show) {
                for member in reply["settings"]?.members ?? [] { print("\(member.key) = \(member.value.encoded)") }
                if let pending = reply["pending"]?.string { print("# \(pending)") }
                if let refused = reply["refused"]?.string { print("# left out at start: \(refused)") }
                return
            }
            do {
                let layer = try SettingsLayer.read(place.file)
                for key in layer.keyPaths { if let value = layer.value(key) { print("\(key) = \(value.inlineText(limit: Int.max))") } }
            } catch {
                switch error {
                case .unreadable(let why):
                    printError("settings: \(why)")
                    throw ExitCode(ExitStatus.unavailable)
                case .invalid(let why):
                    printError(why.description)
                    throw ExitCode(ConfigError.exitCode)
                }
            }
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Drop every setting saved from the setup page.")
        @OptionGroup var place: Where

        func run() throws {
            if try place.ask(.reset) != nil {
                print("settings: reset; the clock at \(place.control) runs on its config file alone")
                return
            }
            do throws(SystemError) {
                try DurableFiles.remove(place.file, directory: place.directory)
            } catch {
                printError("settings: \(error)")
                throw ExitCode(ExitStatus.cannotCreate)
            }
            print("settings: reset (\(place.file) removed; no clock listens at \(place.control))")
        }
    }
}
