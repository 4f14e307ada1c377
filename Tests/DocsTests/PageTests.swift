import Foundation
import Testing

/// The shape of the pages: links that resolve, short lines, a title and a paragraph first,
/// a short README.
@Suite struct PageTests {
    @Test("relative links and images resolve, #anchors included", arguments: DocsRepo.markdownFiles)
    func links(file: String) throws {
        let page = MarkdownPage(path: file, text: try DocsRepo.text(file))
        let directory = (file as NSString).deletingLastPathComponent
        for link in page.links {
            let target = link.target
            // A scheme (https:, mailto:) or a protocol-relative address: not a file here.
            if target.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) != nil || target.hasPrefix("//") {
                continue
            }
            let place = "\(file):\(link.line): \(target)"
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let pathPart = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let anchor = parts.count > 1 ? String(parts[1]) : nil
            guard !pathPart.hasPrefix("/") else {
                Issue.record("\(place): an absolute path; link relative to this file")
                continue
            }
            let resolved = pathPart.isEmpty ? file : Self.normalized(directory.isEmpty ? pathPart : directory + "/" + pathPart)
            guard let resolved, DocsRepo.exists(resolved) else {
                Issue.record("\(place): no such file in the repository")
                continue
            }
            guard let anchor, !anchor.isEmpty else { continue }
            guard resolved.hasSuffix(".md") else { continue }
            let targetPage = resolved == file ? page : MarkdownPage(path: resolved, text: try DocsRepo.text(resolved))
            let anchors = targetPage.anchors
            if !anchors.contains(anchor) {
                let near = anchors.filter { $0.hasPrefix(String(anchor.prefix(4))) }.sorted().prefix(5)
                Issue.record("\(place): \(resolved) has no heading with the anchor #\(anchor)\(near.isEmpty ? "" : "; similar: \(near.joined(separator: ", "))")")
            }
        }
    }

    /// `a/b/../c` as `a/c`; nil when it leaves the repository.
    static func normalized(_ path: String) -> String? {
        var out: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                guard !out.isEmpty else { return nil }
                out.removeLast()
            default: out.append(part)
            }
        }
        return out.joined(separator: "/")
    }

    @Test("no line in docs/ is over 100 characters", arguments: DocsRepo.docsMarkdownFiles)
    func lineLength(file: String) throws {
        let page = MarkdownPage(path: file, text: try DocsRepo.text(file))
        for (index, line) in page.lines.enumerated() where line.count > 100 {
            Issue.record("\(file):\(index + 1): \(line.count) characters (at most 100): \(line.prefix(60))...")
        }
    }

    @Test("every page in docs/ starts with a # title, then a paragraph", arguments: DocsRepo.docsMarkdownFiles)
    func titleAndParagraph(file: String) throws {
        let lines = MarkdownPage(path: file, text: try DocsRepo.text(file)).lines
        guard let title = lines.first, title.hasPrefix("# "), title.count > 2 else {
            Issue.record("\(file):1: a page starts with its title, \"# Title\"; found \(lines.first ?? "(empty file)")")
            return
        }
        guard let index = lines.dropFirst().firstIndex(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            Issue.record("\(file): nothing after the title; a paragraph says what the page is for")
            return
        }
        let first = lines[index].trimmingCharacters(in: .whitespaces)
        let notProse = ["#", "```", "~~~", "|", "- ", "* ", "+ ", ">", "<", "![", "    "]
        if notProse.contains(where: { lines[index].hasPrefix($0) || first.hasPrefix($0) })
            || first.range(of: #"^\d+[.)] "#, options: .regularExpression) != nil {
            Issue.record("\(file):\(index + 1): after the title comes a paragraph saying what the page is for and who it is for; found \(first)")
        }
    }

    @Test("README.md is at most 150 lines")
    func readmeLength() throws {
        let count = MarkdownPage(path: "README.md", text: try DocsRepo.text("README.md")).lines.count
        #expect(count <= 150, "README.md has \(count) lines; at most 150 (the rest belongs in docs/)")
    }
}
