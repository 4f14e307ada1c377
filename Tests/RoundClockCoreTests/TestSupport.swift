import RoundClockCore

/// A plain instant for core tests: time since an arbitrary origin.
struct T: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
    var offset: Duration
    init(_ offset: Duration) { self.offset = offset }
    static func s(_ seconds: Double) -> T { T(.milliseconds(Int64((seconds * 1000).rounded()))) }
    func advanced(by d: Duration) -> T { T(offset + d) }
    func duration(to other: T) -> Duration { other.offset - offset }
    static func < (a: T, b: T) -> Bool { a.offset < b.offset }
    var description: String { offset.formattedSeconds(decimals: 3) }
}

extension Duration {
    static func s(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }
}

/// Every change of the face from `from` until `until`, stepping from one
/// `nextDeadline` to the next exactly as the render loop does.
func faceChanges(_ controller: inout Controller<T>, from: T, until: T, wall: WallTime = WallTime(sinceEpoch: .zero)) -> [(T, Face, [Signal])] {
    var out: [(T, Face, [Signal])] = []
    var now = from
    var last: Face?
    while now <= until {
        let signals = controller.advance(to: now).compactMap { o -> Signal? in
            if case .signal(let s, _) = o { return s } else { return nil }
        }
        let w = wall.advanced(by: from.duration(to: now))
        let face = controller.face(at: now, wallTime: w)
        if face != last || !signals.isEmpty { out.append((now, face, signals)) }
        last = face
        guard let next = controller.nextDeadline(after: now, wallTime: w) else { break }
        precondition(next > now, "deadline \(next) not after \(now)")
        now = next
    }
    return out
}

/// The actions among `occurrences`, in order.
func actions(_ occurrences: [Occurrence<T>]) -> [Action] {
    occurrences.compactMap { if case .action(let a, _) = $0 { a } else { nil } }
}
