import ClockLink
import ControlProtocol
import GatewayAccess
import Hummingbird
import JSON

/// The phone page's program editor (docs/remote.md "Program editor") and setup page
/// ("Setup"): each route forwards one request to the clock, which checks the program or the
/// settings with its own parser and keeps its own files; the gateway writes nothing.
extension GatewayRoutes {
    func addEditor(to router: Router<GatewayContext>) {
        router.get("/api/editor/programs") { request, _ -> Response in
            guard access.hasSession(request) else { return Self.noSession }
            return await forward(ControlRequest.edit(.list).line)
        }
        router.get("/api/settings") { request, _ -> Response in
            guard access.hasSession(request) else { return Self.noSession }
            return await forward(ControlRequest.settings(.show).line)
        }
        let routes = EditorBody.commands.keys.map { ("/api/editor/\($0)", $0) } + EditorBody.settingsCommands.keys.map { ("/api/\($0)", $0) }
        for (path, route) in routes.sorted(by: { $0.0 < $1.0 }) {
            router.post(RouterPath(path)) { request, _ -> Response in
                guard access.originIsAllowed(request) else { return Self.crossSite }
                guard access.hasSession(request) else { return Self.noSession }
                let line: String
                do {
                    line = try EditorBody.line(try await body(request, limit: EditorBody.maximumBytes), route: route)
                } catch let problem as CommandBody.Problem {
                    return JSONReply.failure(.badRequest, problem.description)
                }
                return await forward(line)
            }
        }
    }

    /// The picker's choices: the presets and the config's programs, then the programs saved
    /// on the clock (its `programs` reply; none while it cannot be asked).
    func pickerPrograms() async -> [String] {
        guard let reply = try? await link.send(ControlRequest.edit(.list).line),
              let value = try? JSONParser(maxBytes: ControlLimits.maxReplyBytes).parse(reply),
              case .bool(true)? = value["ok"], case .array(let entries)? = value["programs"] else { return programs }
        let saved = entries.filter { $0["source"]?.string == "saved" }.compactMap { $0["name"]?.string }
        return programs + saved.filter { !programs.contains($0) }
    }
}
