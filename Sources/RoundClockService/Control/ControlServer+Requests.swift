#if canImport(Glibc)
import Glibc
#endif
import ControlProtocol
import Platform
import Synchronization

extension ControlServer {
    /// Reads what `client` sent (up to 4 chunks a turn, so one flooding client cannot hold
    /// the loop), answering each complete line; the end of its stream ends it once its
    /// replies are sent. On an error it is marked failed (`drop` closes it).
    func read(_ client: inout ControlClient, chunk: inout [UInt8]) {
        for _ in 0..<4 {
            let count: Int?
            do {
                count = try UnixSocket.receive(client.fd, into: &chunk, subject: "control client \(client.id)")
            } catch {
                logger.info("\(error); closed")
                client.failed = true
                return
            }
            guard let count else { return }
            if count == 0 {
                // A last line without its newline still counts.
                if !client.line.isEmpty, !client.skippingLine { client.received([0x0A][...], handle: answer) }
                client.closing = true
                return
            }
            client.received(chunk[0..<count], handle: answer)
            if client.pending >= ControlLimits.maxPendingBytes / 2 { return }
        }
    }

    /// Answers one request line.
    func answer(_ client: inout ControlClient, _ line: [UInt8]) {
        guard line.count <= ControlLimits.maxLineBytes else {
            client.queue(ControlReply.failed("line longer than \(ControlLimits.maxLineBytes) bytes").line)
            return
        }
        let request: ControlRequest
        do {
            request = try ControlRequest.parse(line)
        } catch {
            client.queue(ControlReply.failed(error.description).line)
            return
        }
        switch request {
        case .subscribe:
            guard !client.subscribed else {
                client.queue(ControlReply.failed("already subscribed").line)
                return
            }
            client.subscribed = true
            if let current = hub.subscribe() { client.queue(current.line) }
        case .version:
            client.queue(version.line)
        case .command(.program(let spec)):
            // As MODE: a program is chosen only while ready or in clock mode (the loop checks
            // again when it applies the command; this is what the client is told).
            if let state = hub.current?.state, state != "ready", state != "clock" {
                client.queue(ControlReply.failed("program: only while ready or in clock mode, as MODE (the clock is \(state))").line)
                return
            }
            if let why = checkProgram(spec) {
                client.queue(ControlReply.failed(why).line)
                return
            }
            post(.program(spec))
            client.queue(ControlReply.ok.line)
        case .command(let command) where command.editsUnderwaySession:
            // Only a running or paused session is edited (the loop checks again when it
            // applies the command; this is what the client is told).
            if let state = hub.current?.state, state != "running", state != "paused" {
                client.queue(ControlReply.failed("\(command.word): only while running or paused (the clock is \(state))").line)
                return
            }
            post(command)
            client.queue(ControlReply.ok.line)
        case .adopt(let token, let session):
            // Through the render loop's inbox, ordered with the buttons; answered `ok` once the
            // loop has replaced the session (`answerAdopts`), after the state lines that show it.
            waitingAdopts.withLock { $0.append(client.id) }
            if let why = adopt(token, session) {
                waitingAdopts.withLock { _ = $0.removeLast() }
                client.queue(ControlReply.failed(why).line)
            } else {
                client.adoptsWaiting += 1
            }
        case .edit(let request):
            queueEdit(request.word, client: &client) { [edit, hub] reply in edit(request, { hub.current }, reply) }
        case .settings(let request):
            queueEdit(request.word, client: &client) { [settings, hub] reply in settings(request, { hub.current }, reply) }
        case .command(let command):
            post(command)
            client.queue(ControlReply.ok.line)
        }
    }

    /// Hands an editor or settings request to `run`, which answers it through `editReplies`
    /// and the hub's wake-up, whichever thread replies; the job reads the clock's state when
    /// it runs, not when the request came.
    private func queueEdit(_ word: String, client: inout ControlClient,
                           run: (@escaping @Sendable (String) -> Void) -> Void) {
        guard client.editsWaiting < ControlLimits.maxEditsWaiting else {
            client.queue(ControlReply.failed("\(word): \(ControlLimits.maxEditsWaiting) editor requests of this connection "
                + "wait for their replies already; read them first").line)
            return
        }
        client.editsWaiting += 1
        let id = client.id
        run { [weak self] line in
            guard let self else { return }
            self.editReplies.withLock { $0.append((id, line)) }
            self.hub.wake.signal()
        }
    }

    /// Queues the editor replies given since the last look to their clients (a client gone
    /// since is skipped).
    func answerEdits(_ c: inout Connections) {
        let replies = editReplies.withLock { replies in
            defer { replies.removeAll() }
            return replies
        }
        for (id, line) in replies {
            guard var client = c.clients[id], !client.failed else { continue }
            client.editsWaiting -= 1
            client.queue(line)
            flush(&client)
            c.clients[id] = client
            settle(id, &c, drop: client.failed || client.done)
        }
    }

    /// Answers `{"ok": true}` to the clients of the `count` oldest `adopt`s, now carried out
    /// (a client gone since is skipped).
    func answerAdopts(_ count: Int, _ c: inout Connections) {
        let ids = waitingAdopts.withLock { waiting -> ArraySlice<Int> in
            let done = waiting.prefix(count)
            waiting.removeFirst(done.count)
            return done
        }
        for id in ids {
            guard var client = c.clients[id], !client.failed else { continue }
            client.adoptsWaiting -= 1
            client.queue(ControlReply.ok.line)
            flush(&client)
            c.clients[id] = client
            settle(id, &c, drop: client.failed || client.done)
        }
    }

    /// Sends what `client` has pending, as much as its socket takes now. On an error (the
    /// client went away), it is marked failed (`drop` closes it).
    func flush(_ client: inout ControlClient) {
        while client.pending > 0, !client.failed {
            let sent: Int
            do {
                sent = try UnixSocket.send(client.fd, client.output[client.sent...], subject: "control client \(client.id)")
            } catch {
                if error.errno != EPIPE && error.errno != ECONNRESET { logger.info("\(error); closed") }
                client.failed = true
                return
            }
            guard sent > 0 else { break }
            client.sent += sent
        }
        client.compact()
    }
}
