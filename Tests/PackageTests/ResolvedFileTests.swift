import Foundation
import Testing

// Neither package tracks a `Package.resolved`: one written on a machine whose package mirror
// has other commit ids than the public repositories makes SwiftPM refuse every public clone
// ("Revision … does not match previously recorded value"). SwiftPM writes the file anew.
@Suite struct ResolvedFileTests {
    /// The tracked files of the checkout named `Package.resolved`, at any depth.
    static func trackedResolvedFiles() throws -> [String]? {
        let root = Checkout.root
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent(".git").path) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", root.path, "ls-files", "-z"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PackageDump.DumpError("git ls-files exited \(process.terminationStatus)") }
        return String(decoding: data, as: UTF8.self).split(separator: "\0").map(String.init)
            .filter { $0 == "Package.resolved" || $0.hasSuffix("/Package.resolved") }
    }

    @Test func noPackageResolvedIsTracked() throws {
        guard let tracked = try Self.trackedResolvedFiles() else {
            // A source archive without git history: the ignore rules below still hold.
            return
        }
        #expect(tracked.isEmpty, "tracked Package.resolved files, which pin this machine's mirror: \(tracked)")
    }

    @Test func gitIgnoresPackageResolved() throws {
        let ignore = try String(contentsOf: Checkout.root.appendingPathComponent(".gitignore"), encoding: .utf8)
        let lines = Set(ignore.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        // an unanchored name matches at every depth: the root's and Gateway/'s
        #expect(lines.contains("Package.resolved"), ".gitignore has no line `Package.resolved`")
    }
}
