#if canImport(Glibc)
import Glibc
#endif
import ControlProtocol
import Logging
import Platform
import Synchronization

/// The control socket's server (docs/control-protocol.md): one thread of its own, blocked in
/// poll(2) on the listening socket, the clients and the hub's eventfd; never the render
/// loop's thread. A request line is parsed here and its command handed to `post` (the
/// render loop's inbox, as a button press is), then answered with one reply line. Every
/// socket is non-blocking, so no client can stall the thread; a subscriber that does not
/// read its state lines is dropped once `ControlLimits.maxPendingBytes` are waiting.
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
    /// (the loop carries them out in that order; socket thread only).
    let waitingAdopts = Mutex<[Int]>([])
    /// The `version` reply: the protocol's version and the clock program's (`clockVersion`).
    let version: ControlVersion

    /// Listens at `path` (a stale socket replaced), mode 0660, group `ControlLimits.group`
    /// when it exists (if it cannot be given that group, logged: the clock runs on).
    /// Connections wait in the backlog until `start`. `clockVersion` is what `roundclock
    /// --version` prints, for the `version` reply.
    public init(path: String, hub: ControlHub, logger: Logger, clockVersion: String = "unknown",
                checkProgram: @escaping @Sendable (String) -> String?,
                adopt: @escaping @Sendable (Int64, SessionShare) -> String? = { _, _ in "adopt: this clock does not adopt sessions" },
                post: @escaping @Sendable (ControlCommand) -> Void) throws(SystemError) {
        let (fd, group) = try UnixSocket.listen(path: path, mode: 0o660, group: ControlLimits.group)
        self.path = path
        self.listener = fd
        self.hub = hub
        self.logger = logger
        self.post = post
        self.checkProgram = checkProgram
        self.adopt = adopt
        self.version = ControlVersion(clock: clockVersion)
        switch group {
        case .success(let grouped):
            logger.info("control socket \(path) (mode 0660\(grouped ? ", group \(ControlLimits.group)" : ""))")
        case .failure(let error):
            // The clock runs all the same; only its own group can connect (docs/control-protocol.md).
            logger.error("\(error); control socket \(path) left in the service's own group (mode 0660)")
        }
    }

    /// Starts the server's thread; it runs until `stop`, then closes every socket and
    /// removes the socket file.
    public func start() throws(ThreadStartError) -> PosixThread {
        try PosixThread.start(named: "roundclock-ctl") { self.serve() }
    }

    /// Asks the thread to end (join the thread returned by `start` to wait for it).
    public func stop() { hub.stop() }

    private func serve() {
        var clients: [ControlClient] = []
        var nextID = 1
        var refusing = false
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        defer {
            for client in clients { close(client.fd) }
            close(listener)
            unlink(path)
        }
        while true {
            var fds = [pollfd(fd: hub.wake.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            for client in clients {
                var events: Int32 = 0
                if !client.closing, client.pending < ControlLimits.maxPendingBytes / 2 { events |= POLLIN }
                if client.pending > 0 { events |= POLLOUT }
                fds.append(pollfd(fd: client.fd, events: Int16(events), revents: 0))
            }
            do {
                _ = try pollDescriptors(&fds, timeout: -1, subject: "control socket \(path)")
            } catch {
                logger.error("\(error); control socket closed")
                return
            }
            // Clients first: `fds` numbers them as they were before this turn's changes.
            var dropped: [Int] = []
            for index in clients.indices {
                let revents = Int32(fds[index + 2].revents)
                if revents & (POLLIN | POLLHUP | POLLERR) != 0, !clients[index].closing {
                    read(&clients[index], chunk: &chunk)
                }
                if clients[index].pending > 0, revents & (POLLOUT | POLLERR | POLLHUP) != 0 || clients[index].closing {
                    flush(&clients[index])
                }
                // A client that closed its sending side is done once its replies are out, unless
                // it subscribed (`socat` half-closes after its request): then until it hangs up.
                let client = clients[index]
                let hungUp = client.closing && revents & (POLLHUP | POLLERR) != 0
                if client.fd < 0 || hungUp || client.done { dropped.append(index) }
            }
            var adoptsApplied = 0
            if fds[0].revents != 0 {
                hub.wake.clear()
                let taken = hub.take()
                if taken.stopping { return }
                let states = taken.states
                adoptsApplied = taken.adoptsApplied
                let lines = states.map(\.line)
                for index in clients.indices where clients[index].subscribed && clients[index].fd >= 0 {
                    for line in lines { clients[index].queue(line) }
                    if clients[index].pending > ControlLimits.maxPendingBytes {
                        logger.warning("control client \(clients[index].id): subscriber fell behind (\(clients[index].pending) bytes unsent); dropped")
                        dropped.append(index)
                    } else {
                        flush(&clients[index])
                        if clients[index].fd < 0 { dropped.append(index) }
                    }
                }
            }
            if adoptsApplied > 0 { answerAdopts(adoptsApplied, clients: &clients, dropped: &dropped) }
            for index in Set(dropped).sorted(by: >) {
                if clients[index].fd >= 0 { close(clients[index].fd) }
                if clients[index].subscribed { hub.unsubscribe() }
                clients.remove(at: index)
            }
            if fds[1].revents != 0 { accept(into: &clients, nextID: &nextID, refusing: &refusing) }
        }
    }

    private func accept(into clients: inout [ControlClient], nextID: inout Int, refusing: inout Bool) {
        while true {
            let fd: Int32
            do {
                guard let accepted = try UnixSocket.accept(listener, path: path) else { return }
                fd = accepted
            } catch {
                // EMFILE and the like: log, and let poll(2) report the listener again.
                logger.error("\(error)")
                return
            }
            guard clients.count < ControlLimits.maxClients else {
                let refusal = Array((ControlReply.failed("too many clients (at most \(ControlLimits.maxClients))").line + "\n").utf8)
                _ = try? UnixSocket.send(fd, refusal[...], subject: path)
                close(fd)
                if !refusing { logger.warning("control socket: \(ControlLimits.maxClients) clients connected; refusing more") }
                refusing = true
                continue
            }
            refusing = false
            clients.append(ControlClient(fd: fd, id: nextID))
            nextID += 1
        }
    }
}
