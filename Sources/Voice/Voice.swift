import CESpeak
import Sound
import Synchronization

/// A spoken voice: espeak-ng's voice for a language (and variant, e.g. `m3`), rendering
/// phrases into 16-bit mono PCM at espeak-ng's own rate. espeak-ng keeps global state and is
/// not thread-safe, so every call into it, from any `Voice`, holds one process-wide lock; a
/// phrase takes milliseconds to render, so callers render ahead, off the render loop.
public struct Voice: Sendable, Hashable {
    public let language: String
    public let variant: String?
    /// espeak-ng's sample rate (usually 22050 Hz).
    public let rate: Int

    /// espeak-ng's name of the voice: `en`, or `en+m3` with a variant.
    public var name: String { variant.map { language + "+" + $0 } ?? language }

    /// Initializes espeak-ng (once in the process) and checks that it has a voice for the
    /// language.
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

/// The process's one espeak-ng: its rate once initialized, and the voice selected last.
private struct Engine: ~Copyable {
    var rate: Int?
    var selected: String?

    mutating func initialized(language: String) throws(VoiceError) -> Int {
        if let rate { return rate }
        let result = Int(rc_espeak_initialize())
        guard result > 0 else {
            throw VoiceError(language: language, problem: "espeak-ng cannot start for language \"\(language)\" (is espeak-ng-data installed?)")
        }
        rate = result
        return result
    }

    mutating func select(_ name: String, language: String) throws(VoiceError) {
        guard selected != name else { return }
        let rc = rc_espeak_select(name)
        guard rc == 0 else {
            selected = nil
            throw VoiceError(language: language, problem: "espeak-ng has no voice for language \"\(name)\" (espeak-ng --voices lists them)")
        }
        selected = name
    }

    func synthesize(_ phrase: String, language: String) throws(VoiceError) -> [Int16] {
        var buffer = rc_espeak_buffer(samples: nil, count: 0, capacity: 0, failed: 0)
        defer { rc_espeak_free(&buffer) }
        let rc = rc_espeak_synthesize(phrase, &buffer)
        guard rc == 0 else {
            throw VoiceError(language: language, problem: "espeak-ng could not speak \"\(phrase)\" in language \"\(language)\" (error \(rc))")
        }
        guard let samples = buffer.samples, buffer.count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: samples, count: buffer.count))
    }
}

/// espeak-ng failed for a language: it cannot start, has no such voice, or could not speak.
/// One line that names the language.
public struct VoiceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var language: String
    /// The line: what failed, with the language.
    public var problem: String

    public init(language: String, problem: String) {
        self.language = language
        self.problem = problem
    }

    public var description: String { problem }
}
