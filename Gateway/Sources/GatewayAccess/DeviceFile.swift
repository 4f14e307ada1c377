import Logging
import NIOConcurrencyHelpers
import NIOPosix
import Platform

/// `<state dir>/devices`: the known phones' tokens (`DeviceTokens`), one a line, mode 0600,
/// read at start and replaced atomically by `DurableFiles` after each change, on NIO's
/// thread pool, off the request path. Only the newest list waiting is written.
public final class DeviceFile: Sendable {
    public static let name = "devices"
    public let path: String
    private let stateDirectory: String
    private let logger: Logger
    /// The list waiting to be written, and whether a write is under way.
    private let queue = NIOLockedValueBox<(waiting: DeviceTokens?, writing: Bool)>((nil, false))

    public init(stateDirectory: String, logger: Logger) {
        self.stateDirectory = stateDirectory
        self.path = stateDirectory + "/" + Self.name
        self.logger = logger
    }

    /// The stored tokens; none when there is no file yet. A file that cannot be read is one
    /// warning line, and the gateway starts with no known phones.
    public func load() -> DeviceTokens {
        guard !DurableFiles.isFree(path) else { return DeviceTokens() }
        do {
            let bytes = try SmallFiles.read(path, limit: SmallFiles.textLimit, followSymlinks: false)
            return DeviceTokens(fileText: String(decoding: bytes, as: UTF8.self))
        } catch {
            logger.warning("\(error); no phone is known yet")
            return DeviceTokens()
        }
    }

    /// Queues `devices` to be written; returns at once.
    public func save(_ devices: DeviceTokens) {
        let idle = queue.withLockedValue { queue in
            queue.waiting = devices
            let idle = !queue.writing
            queue.writing = true
            return idle
        }
        if idle { NIOThreadPool.singleton.submit { _ in self.writeWaiting() } }
    }

    /// The list waiting to be written, if any; when none is left, writing ends.
    private func takeWaiting() -> DeviceTokens? {
        queue.withLockedValue { queue in
            let devices = queue.waiting
            queue.waiting = nil
            queue.writing = devices != nil
            return devices
        }
    }

    /// Writes the waiting lists until none is left.
    private func writeWaiting() {
        while let devices = takeWaiting() {
            do {
                try DurableFiles.prepareDirectory(stateDirectory)
                try DurableFiles.writeAtomically(devices.fileText, path: path, temp: path + ".tmp",
                                                 directory: stateDirectory, permissions: 0o600)
            } catch {
                logger.warning("\(error); known phones are not kept over a restart")
            }
        }
    }
}
