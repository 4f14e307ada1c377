import Sound
import Testing
@testable import Voice

@Suite struct VoiceTests {
    @Test func roundThreeInEnglishIsAPlausibleSpokenPhrase() throws {
        let voice = try Voice(language: "en")
        let pcm = try voice.speak("round three")
        #expect(pcm.channels == 1)
        #expect(pcm.rate == voice.rate)
        #expect((8000...48000).contains(pcm.rate))
        let seconds = Double(pcm.frames) / Double(pcm.rate)
        #expect(seconds >= 0.3 && seconds <= 3, "\(seconds) s")
        let loud = pcm.samples.filter { abs(Int($0)) > 1000 }.count
        #expect(loud > pcm.frames / 20, "\(loud) of \(pcm.frames) samples above 1000")
    }

    @Test func aVariantSpeaksToo() throws {
        let pcm = try Voice(language: "en", variant: "m3").speak("last round")
        #expect(pcm.frames > 0)
    }

    @Test func switchingLanguagesKeepsEachVoice() throws {
        let english = try Voice(language: "en")
        let german = try Voice(language: "de")
        let before = try english.speak("time")
        _ = try german.speak("zeit")
        let after = try english.speak("time")
        // espeak-ng's output varies by a few samples from call to call, not by voice.
        #expect(abs(after.frames - before.frames) < before.frames / 10, "\(before.frames) and \(after.frames) frames")
    }

    @Test func anUnknownLanguageIsAOneLineErrorNamingIt() {
        do {
            _ = try Voice(language: "qq")
            Issue.record("expected an error")
        } catch {
            #expect(error.language == "qq")
            #expect(error.description == "espeak-ng has no voice for language \"qq\" (espeak-ng --voices lists them)")
            #expect(!error.description.contains("\n"))
        }
    }

    /// The error of loading `soname` as espeak-ng's library, nil when it loads.
    static func loadError(_ soname: String) -> VoiceError? {
        do {
            _ = try SpeechLibrary.open(soname, language: "en")
            return nil
        } catch {
            return error
        }
    }

    /// Without espeak-ng's library (a name no system has), the line names the package to install.
    @Test func aMissingLibraryIsAOneLineErrorNamingThePackage() throws {
        let error = try #require(Self.loadError("libespeak-ng-absent.so.1"))
        #expect(error.libraryMissing)
        #expect(error.description == "[voice] needs libespeak-ng1 (apt install libespeak-ng1): "
                + "libespeak-ng-absent.so.1: cannot open shared object file: No such file or directory")
    }

    /// A library that loads but lacks espeak-ng's functions (libc has none of them) is refused too.
    @Test func aLibraryWithoutEspeakFunctionsIsRefused() throws {
        let error = try #require(Self.loadError("libc.so.6"))
        #expect(error.libraryMissing)
        #expect(error.description.hasPrefix("[voice] needs libespeak-ng1 (apt install libespeak-ng1): "), "\(error)")
        #expect(error.description.contains("espeak_Initialize"), "\(error)")
    }

    /// The library the clock loads is there and has espeak-ng's functions.
    @Test func libespeakNgLoads() {
        #expect(Self.loadError(Voice.library) == nil)
    }
}
