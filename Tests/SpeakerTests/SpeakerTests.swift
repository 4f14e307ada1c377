#if canImport(Glibc)
import Glibc
#endif
import Platform
import Sound
@testable import Speaker
import Synchronization
import Testing

/// The speaker against what every machine has: ALSA's `null` device (no card needed) and
/// names no card answers to. Timing against a real stream is the kernel VM's loopback test.
@Suite struct SpeakerTests {
    final class Events: Sendable {
        let all = Mutex([Speaker.Event]())
        func add(_ event: Speaker.Event) { all.withLock { $0.append(event) } }
        var list: [Speaker.Event] { all.withLock { $0 } }
    }

    func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func anUnknownDeviceIsOneLineNamingIt() {
        #expect(throws: SystemError.self) { try ALSADevice.check("hw:CARD=NoSuchCard", rate: 48_000) }
        do {
            try ALSADevice.check("no-such-pcm", rate: 48_000)
        } catch {
            #expect(error.description.hasPrefix("sound device \"no-such-pcm\": snd_pcm_open failed: "))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func anUnknownMixerControlIsOneLineNamingIt() {
        do {
            try ALSAMixer.set("NoSuchControl", device: "hw:CARD=NoSuchCard,0", percent: nil)
            Issue.record("no error")
        } catch {
            #expect(error.description.hasPrefix("mixer of sound device \"hw:CARD=NoSuchCard,0\": find \"NoSuchControl\" failed"))
            #expect(!error.description.contains("\n"))
        }
    }

    /// A device that cannot be opened is logged once, however many sounds come, and the
    /// speaker still stops at once.
    @Test func aMissingDeviceIsLoggedOnceAndRetried() async throws {
        let events = Events()
        let speaker = try Speaker(device: "no-such-pcm", rate: 48_000, volume: 80, onEvent: events.add)
        let now = SpeakerThread.now()
        let beep = BuiltInSound.beep.render(rate: 48_000)
        speaker.announce([ScheduledSound(id: 1, nanoseconds: now + 100_000_000, pcm: beep)])
        try await eventually { !events.list.isEmpty }
        speaker.report([ScheduledSound(id: 2, nanoseconds: now, pcm: beep)])
        // Long enough for two more attempts (one each half second).
        try await Task.sleep(for: .milliseconds(1_200))
        speaker.stop()
        let list = events.list
        #expect(list.count == 1)
        if case .failed(let error) = list.first {
            #expect(error.description.hasPrefix("sound device \"no-such-pcm\""))
        } else {
            Issue.record("expected one failure, got \(list)")
        }
    }

    /// ALSA's `null` device takes the stream: the speaker opens it when a sound is near,
    /// plays it and stops; `stop()` returns.
    @Test func theNullDeviceOpensPlaysAndStops() async throws {
        let events = Events()
        let speaker = try Speaker(device: "null", rate: 48_000, volume: 80, onEvent: events.add)
        speaker.announce([ScheduledSound(id: 1, nanoseconds: SpeakerThread.now() + 200_000_000,
                                         pcm: BuiltInSound.tick.render(rate: 48_000))])
        try await eventually { events.list.contains { if case .opened = $0 { true } else { false } } }
        speaker.stop()
        guard case .opened(let device, let rate, let channels, let period, let buffer) = events.list.first else {
            Issue.record("not opened: \(events.list)")
            return
        }
        #expect(device == "null" && rate == 48_000 && channels == 1)
        #expect(period > 0 && buffer >= period)
    }
}
