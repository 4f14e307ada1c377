import RoundClockCore
import RoundClockService

/// The ideal picture sequence of a session: every face it shows, with the exact instant
/// (offset from the session anchor) at which that face becomes due. Built from the pure
/// core alone (`Controller.face` and `nextFaceChange` on a session whose anchor is the
/// start), with no clock and no sleeping, so it is the yardstick every approach is
/// measured against: lateness of a commit = commit instant - ideal instant of the face
/// it put on the panels.
public struct Timeline: Sendable {
    public struct Entry: Sendable, Hashable {
        /// When this face becomes due, from the anchor.
        public var at: Duration
        public var face: Face
    }
    public let entries: [Entry]

    /// The faces of `program` started at offset zero, up to and including `horizon`.
    public init(program: Program, horizon: Duration) {
        let origin = VirtualClock.Instant(offset: .zero)
        var controller = Controller<VirtualClock.Instant>(program: program)
        _ = controller.perform(.start, at: origin)
        let wall = WallTime(hour: 12, minute: 0)
        var entries: [Entry] = []
        var t = origin
        while t.offset <= horizon {
            let face = controller.face(at: t, wallTime: wall.advanced(by: t.offset))
            if entries.last?.face != face { entries.append(Entry(at: t.offset, face: face)) }
            guard let next = controller.nextFaceChange(after: t, wallTime: wall.advanced(by: t.offset)) else { break }
            t = next
        }
        self.entries = entries
    }

    /// Matches commits (in commit order) to timeline entries by face, searching forward
    /// from the previous match, and returns each matched commit's lateness together with
    /// the index it matched. Commits of a face not found ahead are skipped.
    public func lateness(of commits: [Commit]) -> [(index: Int, lateness: Duration)] {
        var out: [(index: Int, lateness: Duration)] = []
        var cursor = 0
        for commit in commits {
            guard let i = entries[cursor...].firstIndex(where: { $0.face == commit.face }) else { continue }
            out.append((i, commit.at - entries[i].at))
            cursor = i
        }
        return out
    }

    /// Index of the face that should be showing at `offset` from the anchor.
    public func index(at offset: Duration) -> Int {
        var lo = 0, hi = entries.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if entries[mid].at <= offset { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
}

/// One display commit: the face that went to the panels and when the commit returned
/// (clock read right after `show` returned), as an offset from the session anchor.
public struct Commit: Sendable, Hashable {
    public var at: Duration
    public var face: Face
    public init(at: Duration, face: Face) {
        self.at = at
        self.face = face
    }
}
