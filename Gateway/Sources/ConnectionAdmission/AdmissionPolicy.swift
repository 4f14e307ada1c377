/// Which connections the gateway keeps (docs/remote.md, "Connections"): the table's state and
/// one event in, a decision out, with no socket, clock or lock. `ConnectionTable` holds one
/// under its lock and carries each decision out on the channels.
///
/// A connection is *waiting* (no whole request head yet), a *stranger's* (its heads carried
/// neither a live session nor a known phone's cookie), a *viewer* (a TV page without a
/// session) or a *phone's*. Waiting and strangers' connections are the ones that make room,
/// the idlest first: an idle one before one with a request in flight, then the one least
/// recently active (accepted, sent a head, or answered).
/// - A new connection is always let in. When its client already holds `perAddress` waiting
///   or strangers' connections, that client's idlest one is closed. Else, when all `total`
///   places are taken, the idlest of the client holding the most of them is closed (the
///   newcomer counted with its own client, which goes first on a tie), so a client holding
///   fewer than another never loses one to a newcomer from elsewhere. When no place holds
///   either kind, the newcomer gets a place on trial over `total`.
/// - Over `total`, a phone's head or a login that succeeds closes a stranger's connection,
///   else a viewer (the client with the most viewers, its oldest), else (every place is a
///   phone's) the phone's connection is refused. Any other request is answered and its
///   connection closed after the answer. So only a phone takes a viewer's place, a phone's
///   connection is closed only when every place holds a phone, and the table holds at most
///   `total` + 1 connections.
/// - A stranger's connection becomes a viewer within the viewer caps, and not over `total`.
public struct AdmissionPolicy<Client: Hashable & Sendable>: Sendable {
    public typealias ID = UInt64

    public enum Kind: Sendable, Hashable {
        case waiting, stranger, viewer, phone

        /// Whether the connection makes room for others.
        public var makesRoom: Bool { self == .waiting || self == .stranger }
    }

    /// What a whole request head is: with a live session or a known phone's cookie, a login
    /// without either, or anything else.
    public enum Head: Sendable, Hashable { case phone, login, other }

    public enum Event: Sendable, Hashable {
        case accepted(ID, Client)
        case head(ID, Head)
        /// The connection's answer was sent: it is idle until its next head.
        case answered(ID)
        /// Its login succeeded.
        case loggedIn(ID)
        /// A TV page without a session asks for a viewer's place.
        case asksToView(ID)
        case closed(ID)
    }

    /// Why another connection is closed to make room.
    public enum Room: Sendable, Hashable {
        /// The newcomer's client holds `perAddress` waiting or strangers' connections.
        case sameClient
        /// All places are taken: the client holding the most strangers' connections gives one.
        case busiestClient
        /// A viewer makes room for a phone.
        case viewerForPhone
    }

    public enum Refusal: Sendable, Hashable {
        /// Over `total`: the answer is sent, or every place is a phone's.
        case full
        /// The viewer caps (the page is answered with a refusal, the connection stays).
        case viewers
        /// The connection was already closed to make room.
        case gone
    }

    public enum Decision: Sendable, Hashable {
        case keep
        /// Keep the event's connection and close `ID`.
        case keepClosing(ID, Room)
        /// Close the event's connection (for `asksToView`: refuse the page).
        case refuse(Refusal)
    }

    public struct Connection: Sendable, Hashable {
        public let client: Client
        public var kind: Kind
        /// A request is in flight: its head arrived and its answer is not sent yet.
        public var busy = false
        /// The event count at its last activity: lower is idler.
        public var lastActive: UInt64
    }

    public let bounds: ConnectionBounds
    public private(set) var connections: [ID: Connection] = [:]
    private var tick: UInt64 = 0

    public init(bounds: ConnectionBounds) {
        self.bounds = bounds
    }

    public mutating func decide(_ event: Event) -> Decision {
        tick += 1
        switch event {
        case .accepted(let id, let client):
            return accept(id, client)
        case .head(let id, let head):
            guard var connection = connections[id] else { return .refuse(.gone) }
            connection.busy = true
            connection.lastActive = tick
            if head == .phone, connection.kind != .viewer {
                connection.kind = .phone
            } else if connection.kind == .waiting {
                connection.kind = .stranger
            }
            connections[id] = connection
            return head == .phone && connections.count > bounds.total ? makeRoom(for: id) : .keep
        case .answered(let id):
            guard var connection = connections[id] else { return .refuse(.gone) }
            connection.busy = false
            connection.lastActive = tick
            connections[id] = connection
            guard connections.count > bounds.total, connection.kind.makesRoom else { return .keep }
            connections[id] = nil
            return .refuse(.full)
        case .loggedIn(let id):
            guard var connection = connections[id] else { return .refuse(.gone) }
            if connection.kind != .viewer { connection.kind = .phone }
            connections[id] = connection
            return connections.count > bounds.total ? makeRoom(for: id) : .keep
        case .asksToView(let id):
            guard var connection = connections[id] else { return .refuse(.gone) }
            guard connection.kind != .viewer else { return .keep }
            guard connections.count <= bounds.total else { return .refuse(.full) }
            let viewers = connections.values.filter { $0.kind == .viewer }
            guard viewers.count < bounds.viewers,
                  viewers.count(where: { $0.client == connection.client }) < bounds.viewersPerAddress else {
                return .refuse(.viewers)
            }
            connection.kind = .viewer
            connection.busy = false
            connection.lastActive = tick
            connections[id] = connection
            return .keep
        case .closed(let id):
            connections[id] = nil
            return .keep
        }
    }

    private mutating func accept(_ id: ID, _ client: Client) -> Decision {
        let newcomer = Connection(client: client, kind: .waiting, lastActive: tick)
        let own = connections.filter { $0.value.client == client && $0.value.kind.makesRoom }
        if own.count >= bounds.perAddress, let victim = Self.idlest(own) {
            connections[victim] = nil
            connections[id] = newcomer
            return .keepClosing(victim, .sameClient)
        }
        if connections.count >= bounds.total {
            if let victim = busiestClientsIdlest(newcomer: client) {
                connections[victim] = nil
                connections[id] = newcomer
                return .keepClosing(victim, .busiestClient)
            }
            guard connections.count == bounds.total else { return .refuse(.full) }
        }
        connections[id] = newcomer
        return .keep
    }

    /// Over `total`, for the phone's connection `id`: a stranger's connection, else a viewer,
    /// else `id` itself.
    private mutating func makeRoom(for id: ID) -> Decision {
        if let victim = busiestClientsIdlest(newcomer: nil) {
            connections[victim] = nil
            return .keepClosing(victim, .busiestClient)
        }
        let viewers = connections.filter { $0.value.kind == .viewer }
        var perClient: [Client: Int] = [:]
        for viewer in viewers.values { perClient[viewer.client, default: 0] += 1 }
        if let victim = viewers.min(by: { a, b in
            let (countA, countB) = (perClient[a.value.client, default: 0], perClient[b.value.client, default: 0])
            return countA != countB ? countA > countB : a.value.lastActive < b.value.lastActive
        })?.key {
            connections[victim] = nil
            return .keepClosing(victim, .viewerForPhone)
        }
        connections[id] = nil
        return .refuse(.full)
    }

    /// The idlest waiting or stranger's connection of the client holding the most of them,
    /// `newcomer`'s client counted with one more and first on a tie; `nil` when there is none.
    private func busiestClientsIdlest(newcomer: Client?) -> ID? {
        var perClient: [Client: (count: Int, idlest: (key: ID, value: Connection))] = [:]
        for entry in connections where entry.value.kind.makesRoom {
            if let known = perClient[entry.value.client] {
                perClient[entry.value.client] = (known.count + 1, Self.idler(entry, known.idlest) ? entry : known.idlest)
            } else {
                perClient[entry.value.client] = (1, entry)
            }
        }
        return perClient.max { a, b in
            let scoreA = a.value.count + (a.key == newcomer ? 1 : 0), scoreB = b.value.count + (b.key == newcomer ? 1 : 0)
            if scoreA != scoreB { return scoreA < scoreB }
            if (a.key == newcomer) != (b.key == newcomer) { return b.key == newcomer }
            return Self.idler(b.value.idlest, a.value.idlest)
        }?.value.idlest.key
    }

    private static func idlest(_ candidates: [ID: Connection]) -> ID? {
        candidates.min { idler($0, $1) }?.key
    }

    /// Whether `a` makes room before `b`: idle before busy, then the least recently active.
    private static func idler(_ a: (key: ID, value: Connection), _ b: (key: ID, value: Connection)) -> Bool {
        if a.value.busy != b.value.busy { return !a.value.busy }
        return a.value.lastActive < b.value.lastActive
    }
}
