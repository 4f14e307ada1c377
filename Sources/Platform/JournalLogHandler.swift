#if canImport(Glibc)
import Glibc
#endif
import Logging
import SystemPackage

/// A swift-log handler for journald: one plain line per event on stderr, no timestamp
/// (journald adds its own). With `priorityPrefix`, each line starts with the sd-daemon(3)
/// priority `<N>` (SD_ERR = 3 ... SD_DEBUG = 7), which journald turns into the entry's
/// priority (`SyslogLevelPrefix=yes`, the default); without it, with `level: `.
/// Metadata follows the message as ` key=value`.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public let priorityPrefix: Bool
    private let sink: @Sendable (String) -> Void

    /// `sink` receives each complete line including its `\n` (default: one write(2) to stderr).
    public init(level: Logger.Level = .info, priorityPrefix: Bool = JournalLogHandler.stderrIsJournal(),
                sink: @escaping @Sendable (String) -> Void = JournalLogHandler.writeToStderr) {
        self.logLevel = level
        self.priorityPrefix = priorityPrefix
        self.sink = sink
    }

    /// For `LoggingSystem.bootstrap { _ in JournalLogHandler() }`.
    public static func bootstrap(level: Logger.Level = .info) {
        LoggingSystem.bootstrap { _ in JournalLogHandler(level: level) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        sink(Self.line(level: event.level, message: "\(event.message)", metadata: merged, priorityPrefix: priorityPrefix))
    }

    /// One line: `<6>message key=value\n` or `info: message key=value\n`. Line breaks inside
    /// the message are escaped so that one event stays one journal entry.
    public static func line(level: Logger.Level, message: String, metadata: Logger.Metadata = [:], priorityPrefix: Bool) -> String {
        var text = priorityPrefix ? "<\(priority(level))>" : "\(level): "
        text += message.replacing("\n", with: "\\n")
        for key in metadata.keys.sorted() {
            text += " \(key)=\(metadata[key].map { "\($0)" } ?? "")".replacing("\n", with: "\\n")
        }
        return text + "\n"
    }

    /// sd-daemon(3) / syslog(3) priority: LOG_CRIT 2, LOG_ERR 3, LOG_WARNING 4,
    /// LOG_NOTICE 5, LOG_INFO 6, LOG_DEBUG 7.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// True when stderr is the journal stream systemd connected: `$JOURNAL_STREAM` is
    /// `DEVICE:INODE` of that stream, compared with fstat(2) of fd 2 (systemd.exec(5)).
    public static func stderrIsJournal() -> Bool {
        stderrIsJournal(journalStream: getenv("JOURNAL_STREAM").map { String(cString: $0) })
    }

    /// Whether `journalStream` (`$JOURNAL_STREAM`, "DEVICE:INODE") names standard error.
    public static func stderrIsJournal(journalStream: String?) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        guard let info = try? FileDescriptor.standardError.stat() else { return false }
        return UInt64(info.deviceID.rawValue) == dev && UInt64(info.inode.rawValue) == ino
    }

    /// One write(2) per line, retried on EINTR and short writes (swift-system's `writeAll`).
    public static let writeToStderr: @Sendable (String) -> Void = { line in
        StandardStream.error.write(line)
    }
}
