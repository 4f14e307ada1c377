import HT16K33
import SegmentDisplay

/// Draws one panel from its display RAM and settings as it would look: a status
/// line (label, brightness, blink, on/off), then the art: 5 lines of segment art
/// for `seg7x4`, `bigseg7x4`, `seg14x4`, or an 8-line dot grid for the matrices.
///
/// - Parameters:
///   - kind: the backpack layout the RAM is wired to.
///   - ram: 16 display RAM bytes (other lengths are padded with zeros or cut).
///   - brightness: dimming level 0...15, drawn as the shade of lit segments (ANSI).
///   - blink: hardware blink rate.
///   - displayOn: oscillator and display both on; when false everything is dark.
///   - elapsed: time since blinking started; with blink on, the off half of each
///     period (the second half, as the chip does) is drawn dark. When nil, a
///     blinking panel is drawn lit and the status line says it blinks.
///   - style: `.plain` (ASCII, no escapes) or `.ansi`; see `RenderStyle.detect`.
///   - label: panel name for the status line; defaults to the kind.
/// - Returns: lines joined by "\n", no trailing newline; the caller prints it and
///   decides how to redraw in place.
public func renderArt(
    kind: LayoutKind,
    ram: [UInt8],
    brightness: UInt8 = 15,
    blink: BlinkRate = .off,
    displayOn: Bool = true,
    elapsed: Duration? = nil,
    style: RenderStyle = .plain,
    label: String? = nil
) -> String {
    var bytes = Array(ram.prefix(16))
    bytes += Array(repeating: 0, count: 16 - bytes.count)
    let blankedByBlink = elapsed.map { blinkIsOff(blink, at: $0) } ?? false
    let lit = displayOn && !blankedByBlink
    let shown = lit ? bytes : Array(repeating: 0, count: 16)
    let canvas = kind.isMatrix
        ? MatrixArt.canvas(kind: kind, ram: shown)
        : SegmentArt.canvas(kind: kind, ram: shown)

    var status = "[\(label ?? kind.rawValue)] brightness \(min(brightness, 15))/15"
    status += blink == .off ? ", blink off" : ", blink \(blinkName(blink))"
    if !displayOn { status += ", display off" }
    if displayOn && blankedByBlink { status += " (off phase)" }
    return ([status] + canvas.render(style, brightness: brightness)).joined(separator: "\n")
}

/// Draws an emulated chip's current state (RAM, dimming, blink, oscillator and
/// display bits) with `renderArt`.
public func renderPanel(
    _ chip: EmulatedHT16K33,
    kind: LayoutKind,
    label: String? = nil,
    elapsed: Duration? = nil,
    style: RenderStyle = .plain
) -> String {
    renderArt(
        kind: kind, ram: chip.ram, brightness: chip.brightness,
        blink: chip.blink, displayOn: chip.isLit,
        elapsed: elapsed, style: style, label: label ?? "\(kind) \(chip.name)")
}

/// Whether hardware blink has the LEDs off `elapsed` after blinking started: on
/// for the first half of each period, off for the second.
public func blinkIsOff(_ blink: BlinkRate, at elapsed: Duration) -> Bool {
    let period = blink.periodMilliseconds
    guard period > 0 else { return false }
    let (seconds, attoseconds) = elapsed.components
    let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    let phase = ((milliseconds % Int64(period)) + Int64(period)) % Int64(period)
    return phase >= Int64(period / 2)
}

private func blinkName(_ blink: BlinkRate) -> String {
    switch blink {
    case .off: "off"
    case .twoHertz: "2 Hz"
    case .oneHertz: "1 Hz"
    case .halfHertz: "0.5 Hz"
    }
}
