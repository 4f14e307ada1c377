import ControlProtocol

/// One connection's buffers: the request line being read, and the bytes waiting to be
/// sent (replies and, for a subscriber, state lines).
struct ControlClient {
    let fd: Int32
    /// Numbers connections in log lines (`control client 7 ...`).
    let id: Int
    var line: [UInt8] = []
    /// The current line outgrew `ControlLimits.maxLineBytes`: its rest is skipped up to its newline.
    var skippingLine = false
    var output: [UInt8] = []
    /// How much of `output` has been sent.
    var sent = 0
    var subscribed = false
    /// `adopt`s posted and not yet answered: a client that closed its sending side waits for them.
    var adoptsWaiting = 0
    /// Editor requests not yet answered (a save waits for its write): as `adoptsWaiting`.
    var editsWaiting = 0
    /// The client closed its end: send what is pending, then close.
    var closing = false
    /// Its socket failed (logged): it is let go without another read or send.
    var failed = false

    var pending: Int { output.count - sent }

    /// Closed its sending side and has nothing more coming: it can be let go.
    var done: Bool { closing && pending == 0 && !subscribed && adoptsWaiting == 0 && editsWaiting == 0 }

    /// Splits `bytes` into complete lines for `handle`; keeps the unfinished one. A line
    /// longer than the limit is answered once, by `tooLong`, and skipped.
    mutating func received(_ bytes: ArraySlice<UInt8>, handle: (inout ControlClient, [UInt8]) -> Void) {
        var rest = bytes
        while let newline = rest.firstIndex(of: 0x0A) {
            let piece = rest[rest.startIndex..<newline]
            rest = rest[(newline + 1)...]
            if skippingLine {
                skippingLine = false
                continue
            }
            line.append(contentsOf: piece)
            let complete = line
            line.removeAll(keepingCapacity: true)
            handle(&self, complete)
        }
        guard !skippingLine else { return }
        line.append(contentsOf: rest)
        if line.count > ControlLimits.maxLineBytes {
            handle(&self, line)  // answered as too long
            line.removeAll(keepingCapacity: true)
            skippingLine = true
        }
    }

    /// Queues `text` and a newline.
    mutating func queue(_ text: String) {
        output.append(contentsOf: text.utf8)
        output.append(0x0A)
    }

    /// Forgets what was sent, once it is most of the buffer.
    mutating func compact() {
        if sent == output.count {
            output.removeAll(keepingCapacity: output.count <= 64 * 1024)
            sent = 0
        } else if sent > 64 * 1024 {
            output.removeFirst(sent)
            sent = 0
        }
    }
}
