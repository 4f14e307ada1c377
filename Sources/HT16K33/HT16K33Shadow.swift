/// What one HT16K33 is known to hold and what it should hold: the bookkeeping of
/// `HT16K33Driver`, without the device, so that it is compiled for concrete types whatever
/// device the driver is used with (see `HT16K33Driver`). No closures: plain loops over the
/// 16 RAM bytes.
struct HT16K33Shadow: Sendable {
    /// What the chip should show: the last requested state.
    var target = HT16K33State()
    /// Known RAM content per byte; nil = unknown (power-up, failed write).
    var knownRAM = [UInt8?](repeating: nil, count: HT16K33Command.displayRAMSize)
    /// Last system setup byte known to have reached the chip.
    var knownSystemSetup: UInt8?
    /// Last display setup byte known to have reached the chip.
    var knownDisplaySetup: UInt8?
    /// Last dimming byte known to have reached the chip.
    var knownDimming: UInt8?
    /// False once the device answered a read with EOPNOTSUPP.
    var canRead = true
    /// RAM index read by the last power-loss check.
    var lastCheckedIndex: Int?
    /// The settings are to be re-sent with the next non-blank picture.
    var settingsUnverified = false
    /// RAM bytes written since the last power check: after a power loss they hold what
    /// was written, so only the others can reveal it.
    private var writtenSinceCheck = [Bool](repeating: false, count: HT16K33Command.displayRAMSize)

    /// Whether the chip is known to match `target` (nothing left to write).
    var isSynchronized: Bool {
        guard knownSystemSetup == HT16K33Command.oscillatorOn,
              knownDisplaySetup == target.displaySetupCommand,
              knownDimming == target.dimmingCommand,
              knownRAM.count == target.ram.count else { return false }
        for index in target.ram.indices where knownRAM[index] != target.ram[index] { return false }
        return true
    }

    /// A new picture to show; a blank panel's unverified settings are re-sent with the
    /// first non-blank one.
    mutating func aim(at state: HT16K33State) {
        target = state
        if settingsUnverified, !isBlank { forgetSettings() }
    }

    /// Everything unknown (start-up, re-initialisation).
    mutating func forget() {
        knownRAM = [UInt8?](repeating: nil, count: HT16K33Command.displayRAMSize)
        forgetSettings()
    }

    /// The write-only settings unknown, so they are sent again.
    mutating func forgetSettings() {
        knownSystemSetup = nil
        knownDisplaySetup = nil
        knownDimming = nil
        settingsUnverified = false
    }

    /// First...last RAM byte that differs from what the chip is known to hold, or nil.
    func changedRAM() -> ClosedRange<Int>? {
        var first: Int?
        var last = 0
        for index in target.ram.indices where knownRAM[index] != target.ram[index] {
            if first == nil { first = index }
            last = index
        }
        return first.map { $0...last }
    }

    /// Before the block write of `range`: unknown until it succeeds.
    mutating func beginWriting(_ range: ClosedRange<Int>) {
        for index in range {
            knownRAM[index] = nil
            writtenSinceCheck[index] = true
        }
    }

    /// After the block write of `range` succeeded.
    mutating func endWriting(_ range: ClosedRange<Int>) {
        for index in range { knownRAM[index] = target.ram[index] }
    }

    mutating func clearWrittenSinceCheck() {
        for index in writtenSinceCheck.indices { writtenSinceCheck[index] = false }
    }

    /// The RAM byte the next power check reads, and starts a new check period: the next
    /// lit byte (non-zero target) not written since the last check after `lastCheckedIndex`,
    /// wrapping around; without one, the next such stale byte of any value; nil if every
    /// byte was written. `anyLit`: a stale lit byte exists; `blank`: the whole target is zero.
    mutating func nextCheck() -> (index: Int?, anyLit: Bool, blank: Bool) {
        let after = lastCheckedIndex ?? -1
        var firstLit: Int?, nextLit: Int?, firstStale: Int?, nextStale: Int?
        for index in target.ram.indices where !writtenSinceCheck[index] {
            if firstStale == nil { firstStale = index }
            if nextStale == nil, index > after { nextStale = index }
            guard target.ram[index] != 0 else { continue }
            if firstLit == nil { firstLit = index }
            if nextLit == nil, index > after { nextLit = index }
        }
        clearWrittenSinceCheck()
        let anyLit = firstLit != nil
        let index = anyLit ? (nextLit ?? firstLit) : (nextStale ?? firstStale)
        return (index, anyLit, isBlank)
    }

    /// Every target RAM byte is zero.
    private var isBlank: Bool {
        for byte in target.ram where byte != 0 { return false }
        return true
    }
}
