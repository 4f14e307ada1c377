import ArgumentParser
import CommandLineSupport
import LinuxHardware
import Platform
import RoundClockBench
import RoundClockCore

/// The subcommands of `roundclock-bench` (docs/benchmarks.md). They print medians, percentiles
/// and ratios measured in one run and never fail on noise.
extension RoundClockBenchCommand {

    struct Lateness: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lateness of every display change: our loop, a 60 Hz refresh loop, a 1 s tick counter, same run.")
        @Option(help: "Seconds of real time.") var duration: Double = 60
        @Flag(help: "Keep every CPU busy with a spinning thread meanwhile.") var load = false
        @Flag(help: "Try SCHED_FIFO and 1 ns timer slack for the process's threads.") var fifo = false
        @Flag(help: "Run our loop alone, without the baselines.") var alone = false
        @Flag(help: "Boards without power-loss checks: our loop wakes only for display changes.") var noPowerChecks = false
        func validate() throws { try checkRange(duration, "--duration", 1...86_400, unit: " s") }
        func run() async throws {
            var bench = try LatenessBench(duration: seconds(duration), load: load, fifo: fifo)
            bench.baselines = !alone
            bench.powerChecks = !noPowerChecks
            print(try await bench.run())
        }
    }

    struct Drift: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A full 12-round boxing session: in virtual time (--virtual), or in real time with the baselines alongside.")
        @Flag(help: "Virtual time (milliseconds of real time; the CI check).") var virtual = false
        @Option(help: "Real time only: seconds to run (default: the whole session, 2830.5).") var duration: Double?
        @Flag(help: "Real time only: busy threads on every CPU.") var load = false
        @Option(help: "The program, as for roundclock simulate (scripts/callgrind-per-second runs countdowns).") var program = "boxing"
        func validate() throws {
            if let duration { try checkRange(duration, "--duration", 1...86_400, unit: " s") }
            _ = try parsedProgram()
        }
        /// A program that ends (a stopwatch or the clock would run forever in virtual time).
        func parsedProgram() throws -> Program {
            let parsed: Program
            do { parsed = try ProgramSpec.parse(program) } catch { throw ValidationError(error.description) }
            guard parsed.total != nil else { throw ValidationError("--program must end by itself, \(program) does not") }
            return parsed
        }
        func run() async throws {
            let program = try parsedProgram()
            if virtual {
                print(try await VirtualDrift(program: program).run())
                return
            }
            let length = duration.map(seconds) ?? (program.total ?? .zero) + .milliseconds(500)
            let bench = LatenessBench(program: program, duration: length, load: load,
                                      stallTick: Int(length.components.seconds / 3))
            print(try await bench.run())
        }
    }

    struct Cost: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wake-ups, CPU per hour, RSS and I2C traffic of our loop: running, ready and clock mode.")
        @Option(help: "Seconds of real time per state.") var duration: Double = 20
        func validate() throws { try checkRange(duration, "--duration", 0.1...86_400, unit: " s") }
        func run() async throws {
            print(try await CostBench(duration: seconds(duration)).run())
        }
    }

    struct Buttons: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Button event instant -> display commit latency.")
        @Option(help: "Number of presses.") var presses = 200
        @Flag(help: "Keep every CPU busy with a spinning thread meanwhile.") var load = false
        @Option(name: .customLong("gpio-sim"), help: ArgumentHelp(
            "Real edges: the sysfs directory of a gpio-sim chip (/sys/devices/platform/gpio-sim.0/gpiochipN); presses are made there and read by the button reader with kernel timestamps.",
            valueName: "DIR")) var gpioSim: String?
        @Option(help: "gpio-sim line offset of START.") var startLine: UInt32 = 17
        @Option(help: "gpio-sim line offset of STOP.") var stopLine: UInt32 = 27
        func validate() throws {
            try checkRange(Double(presses), "--presses", 1...100_000)
            if gpioSim != nil, startLine == stopLine { throw ValidationError("--start-line and --stop-line must differ") }
        }
        func run() async throws {
            let sim = gpioSim.map { GPIOSimButtons(sysfs: $0, startOffset: startLine, stopOffset: stopLine) }
            do {
                print(try await ButtonBench(presses: presses, load: load, gpioSim: sim).run())
            } catch let error as SystemError {
                printError("buttons: \(error)")
                throw ExitCode(ExitStatus.unavailable) // no such chip or line
            } catch let error as BenchFailure {
                printError("buttons: \(error)")
                throw ExitCode(ExitStatus.software)
            }
        }
    }

    struct Control: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Control socket: command sent -> display commit, commit -> subscriber's state line.")
        @Option(help: "Number of commands.") var commands = 200
        @Flag(help: "Keep every CPU busy with a spinning thread meanwhile.") var load = false
        func validate() throws { try checkRange(Double(commands), "--commands", 1...100_000) }
        func run() async throws {
            do {
                print(try await ControlBench(commands: commands, load: load).run())
            } catch let error as SystemError {
                printError("control: \(error)")
                throw ExitCode(ExitStatus.unavailable)
            } catch let error as BenchFailure {
                printError("control: \(error)")
                throw ExitCode(ExitStatus.software)
            }
        }
    }

    struct Timers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wake-up overshoot of the kernel timer and of Swift's sleeps, to explain the lateness.")
        @Option(help: "Sleeps per variant.") var count = 200
        @Option(help: "Milliseconds between deadlines (1000: as idle as the render loop between seconds).") var period = 20.0
        func validate() throws {
            try checkRange(Double(count), "--count", 1...100_000)
            try checkRange(period, "--period", 1...60_000, unit: " ms")
        }
        func run() async throws {
            print(await TimerProbe(count: count, period: seconds(period / 1000)).run())
        }
    }

    struct SoundOnsets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sound-onsets",
            abstract: "Record a loopback capture device and time each sound's onset against a frames file's signals.")
        @Option(help: "The capture end of ALSA's loopback card, e.g. hw:Loopback,1,0.") var device: String
        @Option(help: "Seconds to record.") var duration: Double = 60
        @Option(help: "The frames file (written with --frames-clock monotonic), read after the recording.") var frames: String
        @Option(help: "What the report line calls this recording.") var name = "clock"
        func validate() throws { try checkRange(duration, "--duration", 1...86_400, unit: " s") }
        func run() async throws {
            print(try SoundOnsetBench(device: device, seconds: duration, framesFile: frames, name: name).run())
        }
    }

    struct Smoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Runs every benchmark briefly (a few seconds) so CI keeps them building and running; exits 0 if they ran.")
        func run() async throws {
            print(try await LatenessBench(duration: .seconds(2)).run())
            print(try await VirtualDrift().run())
            print(try await CostBench(duration: .milliseconds(600)).run())
            print(try await ButtonBench(presses: 10).run())
            print(try await ControlBench(commands: 10).run())
            print(await TimerProbe(count: 10).run())
            print("bench smoke: all benchmarks ran")
        }
    }
}
