#if canImport(Glibc)
import Glibc
#endif
import ControlProtocol
import Logging
import Platform
import Synchronization

/// The control socket's server (docs/control-protocol.md), on the clock's event loop: the
/// listening socket, each client and the hub's wake-up descriptor are watched by its epoll,
/// and their handlers run on its thread between the render loop's turns. A request line is
/// parsed here and its command handed to `post` (the render loop's inbox, as a button press
/// is), then answered with one reply line. Every socket is non-blocking and a turn reads at
/// most a few chunks of one client, so no client can stall the loop; a subscriber that does
/// not read its state lines is dropped once `ControlLimits.maxPendingBytes` are waiting.
public final class ControlServer: Sendable {
    public let path: String
    let listener: Int32
    public let hub: ControlHub
    let logger: Logger
    /// Carries a command into the render loop (stamped with the loop's clock).
    let post: @Sendable (ControlCommand) -> Void
    /// Why a `program` command's program cannot be run (`nil`: it can).
    let checkProgram: @Sendable (String) -> String?
    /// Checks an `adopt` (token, session), maps it and posts it to the render loop's inbox;
    /// returns why it was refused (`nil`: posted). See `SessionAdopter`.
    let adopt: @Sendable (Int64, SessionShare) -> String?
    /// The ids of the clients whose `adopt` was posted and not yet carried out, oldest first
    /// (the loop carries them out in that order).
    let waitingAdopts = Mutex<[Int]>([])
    /// The `version` reply: the protocol's version and the clock program's (`clockVersion`).
    let version: ControlVersion
    /// Carries out a program editor request (`ProgramEdit`) given the current state, and
    /// answers it through `reply`, at once or later (from the worker thread, once written).
    let edit: @Sendable (ProgramEdit, _ state: @escaping @Sendable () -> ControlState?, _ reply: @escaping @Sendable (String) -> Void) -> Void
    /// Carries out a setup page request (`SettingsEdit`) as `edit` does.
    let settings: @Sendable (SettingsEdit, _ state: @escaping @Sendable () -> ControlState?, _ reply: @escaping @Sendable (String) -> Void) -> Void
    /// Editor replies given by `edit` or `settings` and not yet queued to their clients (client id, line).
    let editReplies = Mutex<[(id: Int, line: String)]>([])

    /// The connections, touched by the loop's handlers (and by `stop`).
    struct Connections {
        var loop: EventLoop?
        var clients: [Int: ControlClient] = [:]
        var watches: [Int: (token: EventLoop.Token, interest: EventLoop.Events)] = [:]
        var listenerWatch: EventLoop.Token?
        var wakeWatch: EventLoop.Token?
        var nextID = 1
        var refusing = false
        /// accept(2) failed (EMFILE and the like): the listener is not watched until a retry.
        var acceptFailing = false
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var stopped = false
    }
    let connections = Mutex(Connections())

    /// Listens at `path` (a stale socket replaced), mode 0660, group `ControlLimits.group`
    /// when it exists (if it cannot be given that group, logged: the clock runs on).
    /// Connections wait in the backlog until `start`. `clockVersion` is what `roundclock
    /// --version` prints, for the `version` reply.
    public init(path: String, hub: ControlHub, logger: Logger, clockVersion: String = "unknown",
                checkProgram: @escaping @Sendable (String) -> String?,
                adopt: @escaping @Sendable (Int64, SessionShare) -> String? = { _, _ in "adopt: this clock does not adopt sessions" },
                edit: @escaping @Sendable (ProgramEdit, _ state: @escaping @Sendable () -> ControlState?, _ reply: @escaping @Sendable (String) -> Void) -> Void = { edit, _, reply in
                    reply(ControlReply.failed("\(edit.word): this clock keeps no saved programs").line)
                },
                settings: @escaping @Sendable (SettingsEdit, _ state: @escaping @Sendable () -> ControlState?, _ reply: @escaping @Sendable (String) -> Void) -> Void = { edit, _, reply in
                    reply(ControlReply.failed("\(edit.word): this clock keeps no settings of the setup page").line)
                },
                post: @escaping @Sendable (ControlCommand) -> Void) throws(SystemError) {
        let (fd, group) = try UnixSocket.listen(path: path, mode: 0o660, group: ControlLimits.group)
        self.path = path
        self.listener = fd
        self.hub = hub
        self.logger = logger
        self.post = post
        self.checkProgram = checkProgram
        self.adopt = adopt
        self.edit = edit
        self.settings = settings
        self.version = ControlVersion(clock: clockVersion)
        switch group {
        case .success(let grouped):
            logger.info("control socket \(path) (mode 0660\(grouped ? ", group \(ControlLimits.group)" : ""))")
        case .failure(let error):
            // The clock runs all the same; only its own group can connect (docs/control-protocol.md).
            logger.error("\(error); control socket \(path) left in the service's own group (mode 0660)")
        }
    }

    /// Watches the listening socket and the hub on `loop` until `stop`.
    public func start(on loop: EventLoop) throws(SystemError) {
        let listenerWatch = try loop.watch(listener, subject: "control socket \(path)") { [weak self] _ in self?.acceptAll() }
        let wakeWatch: EventLoop.Token
        do {
            wakeWatch = try loop.watch(hub.wake.fd, subject: "control socket \(path)") { [weak self] _ in self?.hubChanged() }
        } catch {
            loop.unwatch(listener, listenerWatch)
            throw error
        }
        connections.withLock { c in
            c.loop = loop
            c.listenerWatch = listenerWatch
            c.wakeWatch = wakeWatch
        }
    }

    /// Stops watching, closes every connection and the listening socket, and removes the
    /// socket file (once).
    public func stop() {
        connections.withLock { c in
            guard !c.stopped else { return }
            c.stopped = true
            if let loop = c.loop {
                if let token = c.listenerWatch { loop.unwatch(listener, token) }
                if let token = c.wakeWatch { loop.unwatch(hub.wake.fd, token) }
            }
            for id in Array(c.clients.keys) { drop(id, &c) }
            close(listener)
            unlink(path)
        }
    }

    /// A client's socket is ready (or hung up): read its requests, send what it has pending,
    /// let it go when it is done.
    private func clientReady(_ id: Int, _ events: EventLoop.Events) {
        connections.withLock { c in
            guard !c.stopped, var client = c.clients[id] else { return }
            if !events.isDisjoint(with: [.input, .hangUp, .error]), !client.closing { read(&client, chunk: &c.chunk) }
            if client.failed {
                c.clients[id] = client
                return drop(id, &c)
            }
            if client.pending > 0, !events.isDisjoint(with: [.output, .hangUp, .error]) || client.closing { flush(&client) }
            // A client that closed its sending side is done once its replies are out, unless
            // it subscribed (`socat` half-closes after its request): then until it hangs up.
            let hungUp = client.closing && !events.isDisjoint(with: [.hangUp, .error])
            c.clients[id] = client
            settle(id, &c, drop: client.failed || hungUp || client.done)
        }
    }

    /// The render loop published states (or carried out `adopt`s, or an editor request was
    /// answered): queue them to their clients.
    private func hubChanged() {
        hub.wake.clear()
        let taken = hub.take()
        let lines = taken.states.map(\.line)
        connections.withLock { c in
            guard !c.stopped else { return }
            for id in c.clients.keys.sorted() {
                guard var client = c.clients[id], client.subscribed, !client.failed else { continue }
                for line in lines { client.queue(line) }
                if client.pending > ControlLimits.maxPendingBytes {
                    logger.warning("control client \(id): subscriber fell behind (\(client.pending) bytes unsent); dropped")
                    c.clients[id] = client
                    drop(id, &c)
                    continue
                }
                flush(&client)
                c.clients[id] = client
                settle(id, &c, drop: client.failed)
            }
            if taken.adoptsApplied > 0 { answerAdopts(taken.adoptsApplied, &c) }
            answerEdits(&c)
        }
    }

    /// After a client's turn: drop it, or watch it for what it waits for now (input while
    /// it sends and is not too far behind, output while something is pending).
    func settle(_ id: Int, _ c: inout Connections, drop shouldDrop: Bool) {
        guard let client = c.clients[id], !shouldDrop else {
            drop(id, &c)
            return
        }
        var interest: EventLoop.Events = []
        if !client.closing, client.pending < ControlLimits.maxPendingBytes / 2 { interest.insert(.input) }
        if client.pending > 0 { interest.insert(.output) }
        guard let loop = c.loop, let watch = c.watches[id], watch.interest != interest else { return }
        do {
            try loop.modify(client.fd, watch.token, for: interest)
            c.watches[id] = (watch.token, interest)
        } catch {
            logger.info("\(error); control client \(id) closed")
            drop(id, &c)
        }
    }

    /// Stops watching client `id`, closes its socket and forgets it.
    func drop(_ id: Int, _ c: inout Connections) {
        guard let client = c.clients.removeValue(forKey: id) else { return }
        if let watch = c.watches.removeValue(forKey: id), let loop = c.loop { loop.unwatch(client.fd, watch.token) }
        close(client.fd)
        if client.subscribed { hub.unsubscribe() }
    }

    /// After a failed accept: watch the listener again.
    private func resumeAccepting() {
        connections.withLock { c in
            guard !c.stopped, let loop = c.loop, let token = c.listenerWatch else { return }
            try? loop.modify(listener, token, for: .input)
        }
    }

    private func acceptAll() {
        connections.withLock { c in
            guard !c.stopped, let loop = c.loop else { return }
            while true {
                let fd: Int32
                do {
                    guard let accepted = try UnixSocket.accept(listener, path: path) else { return }
                    fd = accepted
                } catch {
                    // EMFILE and the like: the connection stays queued, so the listener would be
                    // ready again at once. Not watched for 100 ms; logged once until accept works.
                    if !c.acceptFailing { logger.error("\(error); trying again every 100 ms") }
                    c.acceptFailing = true
                    if let token = c.listenerWatch { try? loop.modify(listener, token, for: []) }
                    loop.schedule(atMonotonic: MonotonicClock.read() + .milliseconds(100)) { [weak self] in self?.resumeAccepting() }
                    return
                }
                c.acceptFailing = false
                guard c.clients.count < ControlLimits.maxClients else {
                    let refusal = Array((ControlReply.failed("too many clients (at most \(ControlLimits.maxClients))").line + "\n").utf8)
                    _ = try? UnixSocket.send(fd, refusal[...], subject: path)
                    close(fd)
                    if !c.refusing { logger.warning("control socket: \(ControlLimits.maxClients) clients connected; refusing more") }
                    c.refusing = true
                    continue
                }
                c.refusing = false
                let id = c.nextID
                c.nextID += 1
                do {
                    let token = try loop.watch(fd, subject: "control client \(id)") { [weak self] events in self?.clientReady(id, events) }
                    c.clients[id] = ControlClient(fd: fd, id: id)
                    c.watches[id] = (token, .input)
                } catch {
                    logger.error("\(error)")
                    close(fd)
                }
            }
        }
    }
}
