import CMosquitto

/// What `MQTTClient` connects to and as whom (docs/mqtt-home-assistant.md).
public struct MQTTConnection: Sendable, Hashable {
    public var host: String
    public var port: Int
    /// The MQTT client identifier (MQTT 3.1.1 section 3.1.3.1); a second client with the
    /// same id makes the broker drop the first.
    public var clientID: String
    /// Seconds between PINGREQs when idle (section 3.1.2.10); libmosquitto needs at least 5.
    public var keepalive: Int
    public var username: String?
    public var password: String?
    /// PEM CA certificate(s) the broker's certificate must chain to; set = TLS (mosquitto_tls_set).
    public var caFile: String?
    /// The last will (section 3.1.2.5): the broker publishes it when the connection ends
    /// without a DISCONNECT (crash, power loss, network gone past the keepalive).
    public var will: MQTTMessage?

    public init(host: String, port: Int, clientID: String, keepalive: Int = 60, username: String? = nil,
                password: String? = nil, caFile: String? = nil, will: MQTTMessage? = nil) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.keepalive = keepalive
        self.username = username
        self.password = password
        self.caFile = caFile
        self.will = will
    }

    /// `host:port` (`[v6]:port`), as errors and logs name the broker.
    public var broker: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// One application message: a topic, its bytes, and whether the broker keeps it for later
/// subscribers (retained, section 3.3.1.3). QoS 1 (at least once) unless `atMostOnce`: QoS 0,
/// for the group's time round trips, where a late copy is worth less than none.
public struct MQTTMessage: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool
    public var atMostOnce: Bool

    public init(topic: String, payload: [UInt8], retain: Bool = true, atMostOnce: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.atMostOnce = atMostOnce
    }

    public init(topic: String, text: String, retain: Bool = true, atMostOnce: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), retain: retain, atMostOnce: atMostOnce)
    }
}

/// A libmosquitto call that failed: names the broker, the call and libmosquitto's reason
/// (`mosquitto_strerror`, or the errno text for `MOSQ_ERR_ERRNO`). One line.
public struct MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    public var broker: String
    public var operation: String
    public var reason: String

    public init(broker: String, operation: String, reason: String) {
        self.broker = broker
        self.operation = operation
        self.reason = reason
    }

    /// The error for libmosquitto result `code` (a `MOSQ_ERR_*`).
    init(broker: String, operation: String, code: Int32) {
        self.init(broker: broker, operation: operation, reason: MQTTError.text(code))
    }

    public var description: String { "MQTT broker \(broker): \(operation): \(reason)" }

    /// libmosquitto's words for a `MOSQ_ERR_*` result.
    static func text(_ code: Int32) -> String {
        rc_mosquitto_error(code).map { String(cString: $0) } ?? "error \(code)"
    }

    static func check(_ code: Int32, broker: String, _ operation: String) throws(MQTTError) {
        guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw MQTTError(broker: broker, operation: operation, code: code) }
    }
}
