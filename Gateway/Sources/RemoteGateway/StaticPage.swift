import Hummingbird
import Platform

/// The phone page's and the TV page's files, read once at start-up from the page directory (installed:
/// `/usr/share/roundclock-gateway/public`; in a checkout: `Gateway/Public`) and served from
/// memory: no path from a request ever reaches the file system.
public struct StaticPage: Sendable {
    public struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }
    /// URL path → file.
    public let files: [String: File]

    static let served: [(url: String, file: String, type: String)] = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/api.js", "api.js", "text/javascript; charset=utf-8"),
        ("/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "style.css", "text/css; charset=utf-8"),
        ("/editor.html", "editor.html", "text/html; charset=utf-8"),
        ("/editor.js", "editor.js", "text/javascript; charset=utf-8"),
        ("/editor.css", "editor.css", "text/css; charset=utf-8"),
        ("/setup.html", "setup.html", "text/html; charset=utf-8"),
        ("/setup.js", "setup.js", "text/javascript; charset=utf-8"),
        ("/icon.svg", "icon.svg", "image/svg+xml"),
        ("/display", "display.html", "text/html; charset=utf-8"),
        ("/display.js", "display.js", "text/javascript; charset=utf-8"),
        ("/display.css", "display.css", "text/css; charset=utf-8"),
        ("/manifest.webmanifest", "manifest.webmanifest", "application/manifest+json"),
    ]

    public init(directory: String) throws(SystemError) {
        var files: [String: File] = [:]
        for entry in Self.served {
            let bytes = try SmallFiles.read(directory + "/" + entry.file, limit: 256 * 1024)
            files[entry.url] = File(bytes: bytes, contentType: entry.type)
        }
        self.files = files
    }

    /// The file's answer; for `HEAD` the same headers, its length included, and no body.
    func response(_ path: String, head: Bool = false) -> Response? {
        guard let file = files[path] else { return nil }
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.cacheControl] = "no-cache"
        if head {
            headers[.contentLength] = String(file.bytes.count)
            return Response(status: .ok, headers: headers, body: ResponseBody())
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}
