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

/// The buzzer as a swift-service-lifecycle `Service`: `run()` plays the signals handed to
/// `post(_:)`, in order, each cutting the previous one short, until graceful shutdown or
/// cancellation; then it switches the line off and returns. `post` never blocks, so the
/// render loop's observer can call it between two frames. Run it once.
public struct BuzzerService: Service {
    public let buzzer: Buzzer
    private let signals: AsyncStream<Signal>
    private let continuation: AsyncStream<Signal>.Continuation

    public init(buzzer: Buzzer) {
        self.buzzer = buzzer
        // A backlog can only build up if run() is stalled; then only the newest matter.
        (signals, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(8))
    }

    /// Queues `signal` for the buzzer and returns at once.
    public func post(_ signal: Signal) {
        continuation.yield(signal)
    }

    public func run() async {
        for await signal in signals.cancelOnGracefulShutdown() {
            await buzzer.play(signal)
        }
        await buzzer.silence()
    }
}

/// The stack light as a swift-service-lifecycle `Service`: `run()` shows the lights handed to
/// `post(_:)` until graceful shutdown or cancellation; then it switches every lamp off and
/// returns. `post` never blocks, so the render loop's observer can call it between two
/// frames; only the newest light waiting matters. Run it once.
public struct StackLightService: Service {
    public let lights: StackLights
    private let wanted: AsyncStream<StackLight>
    private let continuation: AsyncStream<StackLight>.Continuation

    public init(lights: StackLights) {
        self.lights = lights
        (wanted, continuation) = AsyncStream.makeStream(of: StackLight.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues `light` for the lamps and returns at once.
    public func post(_ light: StackLight) {
        continuation.yield(light)
    }

    public func run() async {
        for await light in wanted.cancelOnGracefulShutdown() {
            await lights.show(light)
        }
        await lights.release()
    }
}
