import Foundation
import Logging
import Platform
import Synchronization
@testable import RoundClockService

/// Collects log lines for assertions.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func logger(level: Logger.Level = .debug, prefix: Bool = false) -> Logger {
        Logger(label: "test") { _ in
            JournalLogHandler(level: level, priorityPrefix: prefix) { line in self.lines.withLock { $0.append(line) } }
        }
    }
}

/// A fresh directory under the temp dir, removed by `remove()`.
struct TempDir {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("roundclock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    func read(_ name: String) throws -> String { try String(contentsOfFile: "\(path)/\(name)", encoding: .utf8) }
    func write(_ name: String, _ text: String) throws { try text.write(toFile: "\(path)/\(name)", atomically: false, encoding: .utf8) }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
