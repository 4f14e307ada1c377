import NIOCore
import NIOPosix

/// Splits the control socket's byte stream into its lines (docs/control-protocol.md: one
/// JSON object per line, `\n`-terminated), the newline dropped. A line longer than
/// `maximum` bytes is an error that closes the connection: the clock never sends one, and
/// nothing from the socket is kept without bound.
struct LineFramer: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    let maximum: Int

    struct LineTooLong: Error, CustomStringConvertible {
        let maximum: Int
        var description: String { "a line from the clock is longer than \(maximum) bytes" }
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maximum { throw LineTooLong(maximum: maximum) }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= maximum, let line = buffer.readSlice(length: length) else { throw LineTooLong(maximum: maximum) }
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without its newline is incomplete: dropped.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}

/// One connection to the control socket: lines in, lines out.
typealias ControlChannel = NIOAsyncChannel<ByteBuffer, ByteBuffer>

enum ControlSocket {
    /// Longest line accepted from the clock (a state line is a few hundred bytes; the
    /// `programs` reply carries up to 64 KiB of saved TOML).
    static let maximumLine = 256 * 1024

    /// Connects to the Unix socket at `path`, framed into lines.
    static func connect(_ path: String, group: any EventLoopGroup) async throws -> ControlChannel {
        try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(2))
            .connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFramer(maximum: maximumLine)))
                    return try ControlChannel(wrappingChannelSynchronously: channel)
                }
            }
    }
}
