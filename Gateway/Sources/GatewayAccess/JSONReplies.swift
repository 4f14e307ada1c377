import ControlProtocol
import HTTPTypes
import Hummingbird
import JSON

/// The API's JSON answers: the clock's own lines passed through, or the gateway's
/// `{"ok": false, "error": "…"}` in the socket's reply vocabulary.
package enum JSONReply {
    package static func failure(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        body(status, ControlReply.failed(message).line, headers: headers)
    }

    package static func body(_ status: HTTPResponse.Status, _ json: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: json + "\n")))
    }

    package static func strings(_ key: String, _ values: [String]) -> String {
        JSONValue.object([JSONMember(key, .array(values.map(JSONValue.string)))]).encoded
    }
}

/// Headers on every answer (`HTTPGuard` sets them): the page may load only its own files and
/// talk only to this server (`connect-src 'self'` covers the same-origin WebSocket), never be
/// framed.
enum SecurityHeaders {
    static let policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let fields: [(String, String)] = [
        ("Content-Security-Policy", policy),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]
}
