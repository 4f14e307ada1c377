#if canImport(Glibc)
import Glibc
#endif
import Platform
import Testing

/// `$JOURNAL_STREAM` is `DEVICE:INODE` of the stream systemd connected (systemd.exec(5));
/// stderr is the journal only when fd 2 is that stream. No other test reads the variable.
struct JournalStreamTests {
    @Test func stderrIsTheJournalOnlyWhenTheVariableNamesFd2() {
        var info = stat()
        #expect(fstat(STDERR_FILENO, &info) == 0)
        defer { unsetenv("JOURNAL_STREAM") }
        setenv("JOURNAL_STREAM", "\(info.st_dev):\(info.st_ino)", 1)
        #expect(JournalLogHandler.stderrIsJournal())
        setenv("JOURNAL_STREAM", "\(info.st_dev):\(info.st_ino &+ 1)", 1)
        #expect(!JournalLogHandler.stderrIsJournal())
        setenv("JOURNAL_STREAM", "not-a-stream", 1)
        #expect(!JournalLogHandler.stderrIsJournal())
    }
}
