import Foundation
import Testing

/// The speaker from the command line: `check-config` opens the configured device and finds
/// its mixer control; `simulate --sound` plays through it, and a device that is missing is
/// one log line while the clock runs on. (ALSA's `null` device needs no sound card.)
@Suite struct SpeakerCLITests {
    func config(_ name: String, _ text: String) throws -> String {
        let path = temporaryFile(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func checkConfigOpensTheDeviceAndFindsTheMixer() async throws {
        let missing = try config("speaker-missing.toml", "[sound]\nenabled = true\ndevice = \"hw:7,0\"\n")
        let noMixer = try config("speaker-nomixer.toml", "[sound]\nenabled = true\ndevice = \"null\"\nmixer = \"PCM\"\n")
        let good = try config("speaker-good.toml", "[sound]\nenabled = true\ndevice = \"null\"\nvolume = 60\n")
        let off = try config("speaker-off.toml", "[sound]\ndevice = \"hw:7,0\"\n")
        defer { for path in [missing, noMixer, good, off] { try? FileManager.default.removeItem(atPath: path) } }
        let a = try await CLIRun.run(["check-config", missing])
        #expect(a.status == 78)
        #expect(a.stderr == "roundclock: \(missing): sound.device: sound device \"hw:7,0\": snd_pcm_open failed: No such file or directory (errno 2)\n")
        let b = try await CLIRun.run(["check-config", noMixer])
        #expect(b.status == 78)
        #expect(b.stderr.hasPrefix("roundclock: \(noMixer): sound.mixer: mixer of sound device \"null\": find \"PCM\" failed"), "\(b.stderr)")
        #expect(b.stderr.filter { $0 == "\n" }.count == 1)
        let c = try await CLIRun.run(["check-config", good])
        #expect(c.status == 0 && c.stdout.contains("sound: on, device null, volume 60%, 48000 Hz"), "\(c.stdout)\(c.stderr)")
        // Off: the device is not opened, whatever it names.
        let d = try await CLIRun.run(["check-config", off])
        #expect(d.status == 0, "\(d.stderr)")
    }

    @Test func simulateSoundPlaysInRealTimeOnly() async throws {
        let run = try await CLIRun.run(["simulate", "--virtual", "--no-tty", "--program", "countdown:0:05", "--sound"])
        #expect(run.status == 64 && run.stderr.contains("--sound plays in real time"), "\(run.stderr)")
    }

    @Test func simulateSoundOpensTheConfiguredDevice() async throws {
        let null = try config("speaker-null.toml", "[sound]\ndevice = \"null\"\n")
        defer { try? FileManager.default.removeItem(atPath: null) }
        let run = try await CLIRun.run(["simulate", "--no-tty", "--program", "countdown:0:01", "--sound", "--config", null])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("sound: playing on \"null\" at 48000 Hz"), "\(run.stderr)")
        #expect(run.stdout.contains("2 signals, ended finished"))
    }

    /// No device: logged once (it is retried every half second, quietly), the clock counts on.
    @Test func aMissingDeviceIsOneLineAndTheClockRunsOn() async throws {
        let missing = try config("speaker-gone.toml", "[sound]\ndevice = \"hw:7,0\"\n")
        defer { try? FileManager.default.removeItem(atPath: missing) }
        let run = try await CLIRun.run(["simulate", "--no-tty", "--program", "countdown:0:02", "--sound", "--config", missing])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("2 signals, ended finished"))
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("snd_pcm_open failed") }
        #expect(lines.count == 1, "\(run.stderr)")
    }
}
