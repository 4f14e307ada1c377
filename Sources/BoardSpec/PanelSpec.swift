import RoundClockCore
import SegmentDisplay

/// One panel of a board: what it shows, which backpack it is, where it sits on the bus.
public struct PanelSpec: Sendable, Hashable {
    public var role: PanelRole
    public var kind: LayoutKind
    /// 7-bit I2C address, 0x70...0x77.
    public var address: UInt8
    public init(role: PanelRole, kind: LayoutKind, address: UInt8) {
        self.role = role
        self.kind = kind
        self.address = address
    }
}
