import Foundation

/// The parts of a Markdown page the doc tests check: fenced code blocks, ATX headings and
/// the targets of links and images, each with its 1-based line number.
struct MarkdownPage {
    struct CodeBlock {
        /// The line of the opening fence.
        var line: Int
        /// The info string's words: `console doctest` is ["console", "doctest"].
        var info: [String]
        /// The lines between the fences.
        var lines: [String]
        /// The line number of `lines[0]`.
        var firstLine: Int { line + 1 }
        var language: String { info.first ?? "" }
    }

    struct Heading {
        var line: Int
        var level: Int
        /// The heading's text, Markdown and all (`` `display.cadence` ``).
        var text: String
    }

    struct Link {
        var line: Int
        var target: String
    }

    let path: String
    let lines: [String]
    private(set) var blocks: [CodeBlock] = []
    private(set) var headings: [Heading] = []
    private(set) var links: [Link] = []
    /// `id="..."` and `name="..."` of HTML elements: anchors as well.
    private(set) var htmlAnchors: [String] = []

    init(path: String, text: String) {
        self.path = path
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        self.lines = lines
        var fence: (marker: String, block: CodeBlock)?
        for (index, line) in lines.enumerated() {
            let number = index + 1
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var open = fence {
                if trimmed.hasPrefix(open.marker), trimmed.allSatisfy({ $0 == open.marker.first }) {
                    blocks.append(open.block)
                    fence = nil
                } else {
                    open.block.lines.append(line)
                    fence = open
                }
                continue
            }
            if let marker = Self.fenceMarker(trimmed) {
                let info = trimmed.dropFirst(marker.count).split(separator: " ").map(String.init)
                fence = (marker, CodeBlock(line: number, info: info, lines: []))
                continue
            }
            if let heading = Self.heading(line, number: number) { headings.append(heading) }
            let prose = Self.withoutCodeSpans(line)
            links += Self.linkTargets(prose).map { Link(line: number, target: $0) }
            htmlAnchors += Self.matches(of: #"\b(?:id|name)="([^"]+)""#, in: prose)
        }
        if let open = fence { blocks.append(open.block) }
    }

    /// "```" or "~~~" (or longer) opening a fenced block.
    private static func fenceMarker(_ trimmed: String) -> String? {
        for char in ["`", "~"] {
            let run = trimmed.prefix { String($0) == char }
            if run.count >= 3 { return String(run) }
        }
        return nil
    }

    private static func heading(_ line: String, number: Int) -> Heading? {
        let hashes = line.prefix { $0 == "#" }
        guard (1...6).contains(hashes.count), line.dropFirst(hashes.count).first == " " else { return nil }
        var text = line.dropFirst(hashes.count).trimmingCharacters(in: .whitespaces)
        // A closing sequence of #s.
        if let range = text.range(of: #"\s+#+$"#, options: .regularExpression) { text.removeSubrange(range) }
        return Heading(line: number, level: hashes.count, text: text)
    }

    /// `line` with every `code span` emptied, so that brackets inside code are not links.
    static func withoutCodeSpans(_ line: String) -> String {
        var out = ""
        var rest = Substring(line)
        while let start = rest.firstIndex(of: "`") {
            out += rest[..<start]
            let ticks = rest[start...].prefix { $0 == "`" }
            let afterOpen = rest.index(start, offsetBy: ticks.count)
            guard let close = rest[afterOpen...].range(of: String(ticks)) else {
                out += rest[start...]
                return out
            }
            out += "``"
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// Targets of `[text](target)`, `![alt](target)`, `[label]: target` and HTML
    /// `src`/`href` attributes.
    static func linkTargets(_ prose: String) -> [String] {
        var targets = matches(of: #"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#, in: prose)
        targets += matches(of: #"^\s{0,3}\[[^\]]+\]:\s+<?([^\s>]+)>?"#, in: prose)
        targets += matches(of: #"\b(?:src|href)="([^"]+)""#, in: prose)
        return targets
    }

    static func matches(of pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// The anchors GitHub gives this page's headings (see `slug`), duplicates numbered
    /// `-1`, `-2`, ..., plus HTML `id`s and `name`s.
    var anchors: Set<String> {
        var seen: [String: Int] = [:]
        var out = Set(htmlAnchors)
        for heading in headings {
            let base = Self.slug(heading.text)
            let count = seen[base, default: 0]
            seen[base] = count + 1
            out.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return out
    }

    /// A heading's anchor as GitHub makes it: the rendered text (links become their text,
    /// code spans their code), lowercased, every character that is not a letter, a digit,
    /// a space, '-' or '_' dropped, each space made '-'.
    static func slug(_ heading: String) -> String {
        // Outside code spans, links become their text and HTML tags vanish; inside, `<name>` is text.
        var text = ""
        for (index, part) in heading.components(separatedBy: "`").enumerated() {
            guard index % 2 == 0 else {
                text += part
                continue
            }
            text += part.replacingOccurrences(of: #"!?\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
                .replacingOccurrences(of: #"<[^>]+>"#, with: "", options: .regularExpression)
        }
        var out = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar == " " {
                out += "-"
            } else if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The code spans of a line of Markdown, in order (`` `a` and `b` `` gives ["a", "b"]).
    static func codeSpans(_ line: String) -> [String] {
        matches(of: #"`([^`]+)`"#, in: line)
    }
}
