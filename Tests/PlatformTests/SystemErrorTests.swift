#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Platform
import Testing

/// The one error every failed system call becomes: both phrasings read exactly as the
/// journal and CLI lines the other test targets assert.
struct SystemErrorTests {
    @Test func subjectFirstNamesDeviceOperationAndErrno() {
        let error = SystemError(device: "/dev/i2c-250", operation: "open", errno: ENOENT)
        #expect(error.description == "/dev/i2c-250: open failed: No such file or directory (errno 2)")
        #expect(error.errno == ENOENT && error.code == .noSuchFileOrDirectory && error.subject == "/dev/i2c-250" && error.phrasing == .subjectFirst)
    }

    @Test func operationFirstNamesStepAndPath() {
        #expect(SystemError(operation: "open", path: "/x", errno: ENOENT).description == "open /x: No such file or directory (errno 2)")
        #expect(SystemError.notify(socket: "/x", errno: ENOENT, step: "sendto").description
                == "sd_notify sendto /x: No such file or directory (errno 2)")
    }

    @Test func reasonStandsInsteadOfTheErrnoWords() {
        let error = SystemError(operation: "use", path: "/tmp/f", errno: ENOTDIR, reason: "not a directory")
        #expect(error.description == "use /tmp/f: not a directory")
        #expect(SystemError(device: "/tmp/p", operation: "open for writing", errno: ENXIO, reason: "a FIFO with no reader").description
                == "/tmp/p: open for writing failed: a FIFO with no reader")
    }

    @Test func errnoTextComesFromOnePlace() {
        #expect(SystemError.words(EIO) == "Input/output error")
        #expect(SystemError.describe(EPIPE) == "Broken pipe (errno 32)")
        #expect(SystemError(device: "d", operation: "o", errno: ENOMEM).why == SystemError.describe(ENOMEM))
    }

    @Test func sysfsAttributeErrorsNameThePath() {
        #expect(throws: SystemError(device: "/nonexistent/pull", operation: "open", errno: ENOENT)) {
            try writeSysfsAttribute("/nonexistent/pull", "pull-up")
        }
    }
}

/// EINTR is retried in one place for the calls swift-system does not wrap.
struct RetryingEINTRTests {
    @Test func retriesInterruptedCallsUntilTheyFinish() {
        var calls = 0
        let r = retryingEINTR { () -> Int32 in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        #expect(r.result == 7 && r.errno == 0 && calls == 3)
    }

    @Test func otherErrorsReturnAtOnceWithTheirErrno() {
        var calls = 0
        let r = retryingEINTR { () -> Int in
            calls += 1
            errno = EAGAIN
            return -1
        }
        #expect(r.result == -1 && r.errno == EAGAIN && calls == 1)
    }
}

/// Small files: refused unless regular, bounded, UTF-8; errors phrased operation first.
struct SmallFilesTests {
    @Test func refusesWhatIsNotARegularFileAndWhatIsTooLarge() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("platform-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: SystemError(operation: "open", path: dir, errno: EINVAL, reason: "is a directory, not a regular file")) {
            try SmallFiles.read(dir, limit: 10)
        }
        let big = dir + "/big"
        _ = FileManager.default.createFile(atPath: big, contents: Data(repeating: 0x41, count: 2048))
        do {
            _ = try SmallFiles.read(big, limit: 1024)
            Issue.record("a file over the limit was read")
        } catch {
            #expect(SmallFiles.isTooLarge(error) && error.description == "read \(big): larger than 1 KiB")
        }
        #expect(try SmallFiles.read(big, limit: 2048).count == 2048)
        _ = FileManager.default.createFile(atPath: dir + "/latin1", contents: Data([0x66, 0xE9, 0x0A]))
        #expect(throws: SystemError(operation: "decode", path: dir + "/latin1", errno: EILSEQ, reason: "not UTF-8 text")) {
            try SmallFiles.readText(dir + "/latin1")
        }
    }
}
