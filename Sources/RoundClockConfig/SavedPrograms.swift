import RoundClockCore

/// The programs saved from the phone page's editor (docs/programs.md "Saved programs"): each
/// a `[programs.NAME]` TOML snippet, read by the config file's own parser, kept as written
/// (so the page can edit and share it) and stored together in one file of the clock's state
/// directory, the snippets one after another in name order.
public struct SavedPrograms: Sendable, Hashable {
    /// At most this many programs are saved.
    public static let maxPrograms = 64
    /// The file (all snippets) is at most this many bytes.
    public static let maxBytes = 64 * 1024
    /// The file's name in the state directory.
    public static let fileName = "programs.toml"
    /// What errors about a snippet name as their file, before the key path.
    public static let snippetSource = "program"

    /// Each program's snippet, by name.
    public private(set) var snippets: [String: String] = [:]
    /// The programs, in name order.
    public private(set) var programs: [Program] = []

    public init() {}

    /// Reads one `[programs.NAME]` snippet as the config file's `[programs]` table is read;
    /// the error is the line `check-config` prints, `program:` in place of the file's name,
    /// without a key's line (the page edits a form, and the snippet is read without its
    /// leading comments).
    public static func check(_ snippet: String) throws(ConfigError) -> Program {
        let text = normalized(snippet)
        guard text.utf8.count <= maxBytes else {
            throw ConfigError(file: snippetSource, location: "", message: "\(text.utf8.count) bytes; a program is at most \(maxBytes) bytes")
        }
        guard text.hasPrefix("[programs.") else {
            throw ConfigError(file: snippetSource, location: "line 1, column 1",
                              message: "a program starts with its table header, e.g. [programs.circuit]")
        }
        let programs: [Program]
        do { programs = try parsePrograms(text, file: snippetSource) } catch {
            throw ConfigError(file: error.file, location: error.location, message: error.message)
        }
        guard programs.count == 1, let program = programs.first else {
            throw ConfigError(file: snippetSource, location: "programs",
                              message: "\(programs.count) programs; give exactly one [programs.NAME] table")
        }
        return program
    }

    /// Reads the saved file's `text`; errors name `file`.
    public static func load(_ text: String, file: String) throws(ConfigError) -> SavedPrograms {
        guard text.utf8.count <= maxBytes else {
            throw ConfigError(file: file, location: "", message: "\(text.utf8.count) bytes; at most \(maxBytes) bytes")
        }
        let programs = try parsePrograms(text, file: file)
        guard programs.count <= maxPrograms else {
            throw ConfigError(file: file, location: "programs", message: "\(programs.count) programs; at most \(maxPrograms)")
        }
        var saved = SavedPrograms()
        for piece in pieces(of: text) {
            let program: Program
            do { program = try check(piece) } catch {
                throw ConfigError(file: file, location: error.location, message: error.message)
            }
            saved.snippets[program.name] = normalized(piece)
        }
        guard Set(saved.snippets.keys) == Set(programs.map(\.name)) else {
            throw ConfigError(file: file, location: "programs", message: "every program must start with its own [programs.NAME] header")
        }
        saved.programs = programs
        return saved
    }

    /// What can be kept of a file `load` refused: each snippet that reads on its own (the
    /// first of a name, up to `maxPrograms`, within `maxBytes`), and the error of each other.
    public static func salvage(_ text: String, file: String) -> (saved: SavedPrograms, refused: [ConfigError]) {
        var snippets: [String: String] = [:]
        var refused: [ConfigError] = []
        for piece in pieces(of: text) {
            do throws(ConfigError) {
                let program = try check(piece)
                guard snippets[program.name] == nil else {
                    throw ConfigError(file: file, location: "programs.\(program.name)", message: "saved twice; the first is kept")
                }
                guard snippets.count < maxPrograms, Self.text(of: snippets.merging([program.name: normalized(piece)]) { $1 }).utf8.count <= maxBytes else {
                    throw ConfigError(file: file, location: "programs.\(program.name)", message: "past the limits of \(maxPrograms) programs and \(maxBytes) bytes")
                }
                snippets[program.name] = normalized(piece)
            } catch {
                refused.append(ConfigError(file: file, location: error.location, message: error.message))
            }
        }
        // Each kept snippet read alone; together they read back as the file `load` takes.
        guard let saved = try? load(Self.text(of: snippets), file: file) else { return (SavedPrograms(), refused) }
        return (saved, refused)
    }

    /// The saved file's `text` with each program named as a preset (saved before presets
    /// outside the MODE cycle were reserved) renamed `NAME-saved` (`-saved-2`, ... when that
    /// is taken here or in `taken`), so it loads without hiding the preset: the new text and
    /// each renaming.
    public static func renamingPresetNames(_ text: String, taken: [String]) -> (text: String, renamed: [(from: String, to: String)]) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var names = Set(taken + lines.compactMap { headerName($0)?.name })
        var renamed: [(from: String, to: String)] = []
        let out = lines.map { line -> String in
            guard let header = headerName(line), Presets.reservedNames.contains(header.name) else { return line }
            if let earlier = renamed.first(where: { $0.from == header.name }) { return header.prefix + earlier.to + header.rest }
            var to = "\(header.name)-saved"
            var count = 1
            while names.contains(to) {
                count += 1
                to = "\(header.name)-saved-\(count)"
            }
            names.insert(to)
            renamed.append((header.name, to))
            return header.prefix + to + header.rest
        }
        return (out.joined(separator: "\n"), renamed)
    }

    /// The program's name in a line `[programs.NAME...` or `[[programs.NAME...` (quotes
    /// allowed), with what comes before and after it.
    private static func headerName(_ line: String) -> (prefix: String, name: String, rest: String)? {
        guard let opening = ["[[programs.", "[programs."].first(where: { line.hasPrefix($0) }) else { return nil }
        var rest = Substring(line.dropFirst(opening.count))
        let quoted = rest.first == "\""
        if quoted { rest = rest.dropFirst() }
        let name = rest.prefix { $0 != "." && $0 != "]" && $0 != "\"" && !$0.isWhitespace }
        guard !name.isEmpty else { return nil }
        return (opening + (quoted ? "\"" : ""), String(name), String(rest.dropFirst(name.count)))
    }

    /// The saved programs with `snippet` added (or replacing the one of its name): its
    /// program, and the file's new text. A name the config file has (`configured`) is
    /// refused: the config wins.
    public func saving(_ snippet: String, configured: [Program]) throws(ConfigError) -> (saved: SavedPrograms, program: Program) {
        let program = try Self.check(snippet)
        let name = program.name
        guard !configured.contains(where: { $0.name == name }) else {
            throw ConfigError(file: Self.snippetSource, location: "programs.\(name)",
                              message: "\"\(name)\" is a program of the config file, which the editor cannot change; pick another name")
        }
        var next = snippets
        next[name] = Self.normalized(snippet)
        guard next.count <= Self.maxPrograms else {
            throw ConfigError(file: Self.snippetSource, location: "programs.\(name)",
                              message: "\(Self.maxPrograms) programs are saved already; delete one first")
        }
        let text = Self.text(of: next)
        guard text.utf8.count <= Self.maxBytes else {
            throw ConfigError(file: Self.snippetSource, location: "programs.\(name)",
                              message: "the saved programs would take \(text.utf8.count) bytes; at most \(Self.maxBytes); delete one first")
        }
        // What is written must read back as these programs (one header per snippet).
        let reread: SavedPrograms
        do { reread = try Self.load(text, file: Self.snippetSource) } catch {
            throw ConfigError(file: Self.snippetSource, location: "programs.\(name)",
                              message: "cannot be stored with the others (\(error.message)); write it as one [programs.\(name)] table")
        }
        guard reread.snippets == next else {
            throw ConfigError(file: Self.snippetSource, location: "programs.\(name)",
                              message: "cannot be stored with the others; write it as one [programs.\(name)] table")
        }
        return (reread, program)
    }

    /// The saved programs without `name`; `nil` if none has that name.
    public func deleting(_ name: String) -> SavedPrograms? {
        guard snippets[name] != nil else { return nil }
        var next = SavedPrograms()
        next.snippets = snippets
        next.snippets[name] = nil
        next.programs = programs.filter { $0.name != name }
        return next
    }

    /// The file's text: the snippets in name order, a blank line between them.
    public var text: String { Self.text(of: snippets) }

    private static func text(of snippets: [String: String]) -> String {
        snippets.keys.sorted().compactMap { snippets[$0] }.joined(separator: "\n")
    }

    private static func parsePrograms(_ text: String, file: String) throws(ConfigError) -> [Program] {
        var root = try TOMLReader.parse(text, file: file)
        var programs: [Program] = []
        if var table = try root.table("programs") {
            programs = try Config.customPrograms(&table)
            try table.finish()
        }
        try root.finish()
        return programs
    }

    /// The snippet without the blank and comment lines before its header, ending in one newline.
    static func normalized(_ snippet: String) -> String {
        var lines = snippet.split(separator: "\n", omittingEmptySubsequences: false)
        while let first = lines.first, first.trimmed.isEmpty || first.trimmed.hasPrefix("#") { lines.removeFirst() }
        while let last = lines.last, last.trimmed.isEmpty { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The file cut before each line that starts a `[programs.` table.
    private static func pieces(of text: String) -> [String] {
        var out: [[Substring]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("[programs.") || out.isEmpty { out.append([]) }
            out[out.count - 1].append(line)
        }
        return out.map { $0.joined(separator: "\n") }.filter { !$0.trimmed.isEmpty }
    }
}
