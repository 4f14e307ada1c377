/// How many character positions the time and round panels have: the face's texts are
/// laid out for them (docs/buttons-and-panels.md). The phase panel always gets a
/// four-character label.
public struct PanelWidths: Sendable, Hashable {
    /// Digits of the time panel: 4 (the Adafruit backpacks), 6 or 8 (`H:MM:SS`,
    /// `PanelTime.sixDigits`; 8 shows the 6-digit text right-aligned).
    public var time: Int
    /// Digits of the round panel: 2 (the round alone) or 4 and more (`rr.tt`).
    public var round: Int

    public init(time: Int = 4, round: Int = 4) {
        self.time = time
        self.round = round
    }

    /// The texts a time panel of `digits` positions can be given: the board check makes
    /// sure its layout shows each (colons and points where the texts put them).
    public static func timeSamples(digits: Int) -> [String] {
        guard digits >= 6 else { return [" 0:00", "10:59", " 123", "88:88"] }
        let values: [Duration] = [.zero, .milliseconds(5_100), .seconds(599), .seconds(3599) + .milliseconds(900),
                                  .seconds(3600), .seconds(7199), .seconds(36_000), .seconds(359_999)]
        var samples: [String] = []
        for cadence in Cadence.allCases {
            for value in values {
                samples.append(PanelTime.countdown(value, cadence: cadence, digits: digits).text)
                samples.append(PanelTime.countUp(value, cadence: cadence, digits: digits).text)
            }
        }
        return samples + ["-9:59", "+9:59", "-1:05", "+1:05"]
    }

    /// The texts a round panel of `digits` positions can be given.
    public static func roundSamples(digits: Int) -> [String] {
        digits < 4 ? ["--", " 3", "12"] : ["--.12", " 3.12"]
    }
}
