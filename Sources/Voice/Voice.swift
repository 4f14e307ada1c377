import CESpeak
import Sound
import Synchronization

/// A spoken voice: espeak-ng's voice for a language (and variant, e.g. `m3`), rendering
/// phrases into 16-bit mono PCM at espeak-ng's own rate. The first voice loads espeak-ng
/// (`libespeak-ng.so.1`, dlopen(3)): the clock does not link it. espeak-ng keeps global state
/// and is not thread-safe, so every call into it, from any `Voice`, holds one process-wide
/// lock; a phrase takes milliseconds to render, so callers render ahead, off the render loop.
public struct Voice: Sendable, Hashable {
    public let language: String
    public let variant: String?
    /// espeak-ng's sample rate (usually 22050 Hz).
    public let rate: Int

    /// espeak-ng's name of the voice: `en`, or `en+m3` with a variant.
    public var name: String { variant.map { language + "+" + $0 } ?? language }

    /// The shared library espeak-ng is loaded from, and the Debian package that ships it.
    public static let library = "libespeak-ng.so.1"
    public static let libraryPackage = "libespeak-ng1"

    /// Loads and initializes espeak-ng (once in the process) and checks that it has a voice
    /// for the language.
    public init(language: String, variant: String? = nil) throws(VoiceError) {
        self.language = language
        self.variant = variant
        let name = variant.map { language + "+" + $0 } ?? language
        rate = try Self.engine.withLock { engine throws(VoiceError) in
            let rate = try engine.initialized(language: language)
            try engine.select(name, language: language)
            return rate
        }
    }

    /// `phrase` spoken, mono at `rate`.
    public func speak(_ phrase: String) throws(VoiceError) -> PCM {
        let samples = try Self.engine.withLock { engine throws(VoiceError) in
            _ = try engine.initialized(language: language)
            try engine.select(name, language: language)
            return try engine.synthesize(phrase, language: language)
        }
        return PCM(rate: rate, channels: 1, samples: samples)
    }

    private static let engine = Mutex(Engine())
}

/// espeak-ng's functions, loaded from a shared library. The table stays in memory of its own
/// for the life of the process, as the library does, and is handed to the C wrappers by address.
struct SpeechLibrary {
    let functions: UnsafeMutablePointer<rc_espeak_library>

    /// Loads `soname` (dlopen(3)); a missing library or function is a one-line error naming
    /// the package to install.
    static func open(_ soname: String, language: String) throws(VoiceError) -> SpeechLibrary {
        let functions = UnsafeMutablePointer<rc_espeak_library>.allocate(capacity: 1)
        functions.initialize(to: rc_espeak_library())
        if let error = rc_espeak_open(soname, functions) {
            let line = String(cString: error)
            functions.deallocate()
            throw VoiceError(language: language, libraryMissing: true,
                             problem: "[voice] needs \(Voice.libraryPackage) (apt install \(Voice.libraryPackage)): \(line)")
        }
        return SpeechLibrary(functions: functions)
    }
}

/// The process's one espeak-ng: its functions once loaded, its rate once initialized, and the
/// voice selected last.
private struct Engine: ~Copyable {
    var library: SpeechLibrary?
    var rate: Int?
    var selected: String?

    mutating func loaded(language: String) throws(VoiceError) -> SpeechLibrary {
        if let library { return library }
        let loaded = try SpeechLibrary.open(Voice.library, language: language)
        library = loaded
        return loaded
    }

    mutating func initialized(language: String) throws(VoiceError) -> Int {
        if let rate { return rate }
        let library = try loaded(language: language)
        let result = Int(rc_espeak_initialize(library.functions))
        guard result > 0 else {
            throw VoiceError(language: language, problem: "espeak-ng cannot start for language \"\(language)\" (is espeak-ng-data installed?)")
        }
        rate = result
        return result
    }

    mutating func select(_ name: String, language: String) throws(VoiceError) {
        guard selected != name else { return }
        guard let library else { return }
        let rc = rc_espeak_select(library.functions, name)
        guard rc == 0 else {
            selected = nil
            throw VoiceError(language: language, problem: "espeak-ng has no voice for language \"\(name)\" (espeak-ng --voices lists them)")
        }
        selected = name
    }

    func synthesize(_ phrase: String, language: String) throws(VoiceError) -> [Int16] {
        guard let library else { return [] }
        var buffer = rc_espeak_buffer(samples: nil, count: 0, capacity: 0, failed: 0)
        defer { rc_espeak_free(&buffer) }
        let rc = rc_espeak_synthesize(library.functions, phrase, &buffer)
        guard rc == 0 else {
            throw VoiceError(language: language, problem: "espeak-ng could not speak \"\(phrase)\" in language \"\(language)\" (error \(rc))")
        }
        guard let samples = buffer.samples, buffer.count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: samples, count: buffer.count))
    }
}

/// espeak-ng failed for a language: it is not installed, cannot start, has no such voice, or
/// could not speak. One line that names the language, or the package to install.
public struct VoiceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var language: String
    /// espeak-ng's library could not be loaded: the line names its package.
    public var libraryMissing: Bool
    /// The line: what failed, with the language or the package.
    public var problem: String

    public init(language: String, libraryMissing: Bool = false, problem: String) {
        self.language = language
        self.libraryMissing = libraryMissing
        self.problem = problem
    }

    public var description: String { problem }
}
