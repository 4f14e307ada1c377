import ArgumentParser
import CommandLineSupport
import ControlProtocol
import Logging
import Platform
import RoundClockConfig
import RoundClockCore
import RoundClockService
#if canImport(Glibc)
import Glibc
#endif

extension Run {
    /// Where the control socket listens: `--control PATH`; else, off `--simulate`, in the
    /// service's runtime directory (`$RUNTIME_DIRECTORY`, set by systemd from
    /// `RuntimeDirectory=roundclock`: /run/roundclock/control.sock); else none.
    func controlPath() -> String? {
        if let control { return control }
        guard !simulate, let runtime = getenv("RUNTIME_DIRECTORY").map({ String(cString: $0) }),
              let first = runtime.split(separator: ":").first, !first.isEmpty else { return nil }
        return "\(first)/\(ControlLimits.socketName)"
    }

    /// The control socket's server, listening (docs/control-protocol.md): commands go into
    /// `inbox` stamped with `clock`'s now, `program` checked against the config. A socket
    /// that cannot be set up is one line and exit 73, like the frames file.
    /// `adopt` maps anchors through `clocks` (`SessionAdopter`). The editor's requests go to
    /// `library`, whose saved programs `program` and `adopt` reach as they do the config's; the setup
    /// page's to `settings`.
    func controlServer<C: Clock & Sendable>(config: Config, library: ProgramLibrary, settings: SettingsStore, inbox: ButtonInbox<C.Instant>, clock: C, clocks: SessionClocks<C.Instant>,
                                            logger: Logger) throws -> ControlServer?
    where C.Duration == Duration, C.Instant: Sendable {
        guard let path = controlPath() else { return nil }
        let adopter = SessionAdopter<C.Instant>(
            clocks: clocks,
            resolve: { spec in
                let config = library.merged(config)
                return config.resolveProgram(spec).map { .success($0) }
                    ?? .failure(ControlError(Self.whyNotRunnable(spec, config: config) ?? "unknown program \(spec)"))
            },
            post: inbox.post)
        do {
            let hub = try ControlHub()
            return try ControlServer(
                path: path, hub: hub, logger: logger, clockVersion: RoundClockVersion.text,
                checkProgram: { spec in Self.whyNotRunnable(spec, config: library.merged(config)) },
                adopt: { token, share in adopter.adopt(token: token, share: share) },
                edit: { request, state, reply in library.handle(request, state: state, reply: reply) },
                settings: { request, _, reply in settings.handle(request, reply: reply) },
                post: { command in inbox.post(command, at: clock.now) })
        } catch {
            printError("control socket: \(error)")
            throw ExitCode(ExitStatus.cannotCreate)
        }
    }

    /// Why `spec` names no program the clock can run, as `--program` would say it; `nil` if it does.
    static func whyNotRunnable(_ spec: String, config: Config) -> String? {
        guard config.resolveProgram(spec) == nil else { return nil }
        do { _ = try ProgramSpec.parse(spec, alsoNamed: config.programs.map(\.name)) } catch { return error.description }
        return "unknown program \(spec)"
    }
}
