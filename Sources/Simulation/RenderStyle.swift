#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How panel art is drawn.
public enum RenderStyle: Sendable, Equatable {
    /// ASCII only, no escape codes (logs, pipes, tests).
    case plain
    /// Unicode segments with ANSI 256-colour shades: lit segments in a red whose
    /// depth follows the dimming level, unlit segments as dark grey ghosts.
    case ansi

    /// `.ansi` when `fileDescriptor` is a terminal and TERM is set and not "dumb"
    /// and NO_COLOR is unset; `.plain` otherwise.
    public static func detect(fileDescriptor: Int32 = 1) -> RenderStyle {
        guard isatty(fileDescriptor) == 1, getenv("NO_COLOR") == nil,
              let term = getenv("TERM"), String(cString: term) != "dumb"
        else { return .plain }
        return .ansi
    }
}
