import Platform
import RoundClockCore
import ServiceLifecycle

/// The buttons as a swift-service-lifecycle `Service`: `run()` starts the reader on the
/// event loop, waits for graceful shutdown (a shutdown signal or `--until`) or
/// cancellation, then stops it. A reader whose every line failed fails the service with the
/// error: `run` then exits non-zero and systemd restarts it.
public struct ButtonService: Service {
    public let reader: ButtonReader
    public let loop: EventLoop
    public init(reader: ButtonReader, loop: EventLoop) {
        self.reader = reader
        self.loop = loop
    }

    public func run() async throws {
        reader.start(on: loop)
        defer { reader.stop() }
        let ended = reader.endedByFailure
        let failure = await withTaskGroup(of: ButtonFailure?.self) { group in
            group.addTask {
                try? await gracefulShutdown() // returns on graceful shutdown, throws on cancellation
                return nil
            }
            group.addTask {
                for await failure in ended { return failure }
                return nil // finished without a failure, or cancelled
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let failure { throw failure }
    }
}

/// An output driven from the render loop as a swift-service-lifecycle `Service`: `run()`
/// hands each value given to `post(_:)` to the output, in order, until graceful shutdown or
/// cancellation; then it switches the output off and returns. `post` never blocks, so the
/// loop's observer can call it between two frames; when `run()` falls behind, only the
/// newest values waiting are kept. Run it once.
public struct OutputService<Value: Sendable>: Service {
    private let values: AsyncStream<Value>
    private let continuation: AsyncStream<Value>.Continuation
    private let show: @Sendable (Value) async -> Void
    private let off: @Sendable () async -> Void

    /// An output that keeps at most `newest` values waiting; `show` drives it, `off` releases it.
    public init(keepingNewest newest: Int, show: @escaping @Sendable (Value) async -> Void,
                off: @escaping @Sendable () async -> Void) {
        (values, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(newest))
        self.show = show
        self.off = off
    }

    /// Queues `value` for the output and returns at once.
    public func post(_ value: Value) {
        continuation.yield(value)
    }

    public func run() async {
        for await value in values.cancelOnGracefulShutdown() {
            await show(value)
        }
        await off()
    }
}

/// The buzzer (or the horn relay): each signal's pattern, in order, each cutting the previous
/// one short.
public typealias BuzzerService = OutputService<Signal>

extension OutputService where Value == Signal {
    public init(buzzer: Buzzer) {
        self.init(keepingNewest: 8, show: { await buzzer.play($0) }, off: { await buzzer.silence() })
    }
}

/// The stack light: only the newest light waiting matters.
public typealias StackLightService = OutputService<StackLight>

extension OutputService where Value == StackLight {
    public init(lights: StackLights) {
        self.init(keepingNewest: 1, show: { await lights.show($0) }, off: { await lights.release() })
    }
}
