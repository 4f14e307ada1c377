import Foundation
import Testing

// docs/design.md "Targets" matches Package.swift: its first block lists every target of the
// clock's package that is not a test, its second block the gateway's, each above the targets
// it depends on; the section names every test target and every library product.

/// The "## Targets" section of docs/design.md.
struct TargetsSection {
    var text: String
    /// The first word of each line of each code block, in order.
    var blocks: [[String]]

    init(markdown: String) {
        var inSection = false
        var inBlock = false
        var lines: [Substring] = []
        var blocks: [[String]] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inSection = line == "## Targets" }
            guard inSection else { continue }
            lines.append(line)
            if line.hasPrefix("```") {
                inBlock.toggle()
                if inBlock { blocks.append([]) }
            } else if inBlock, let word = line.split(separator: " ").first {
                blocks[blocks.count - 1].append(String(word))
            }
        }
        text = lines.joined(separator: "\n")
        self.blocks = blocks
    }

    /// What differs between `block` and the non-test targets of `package`, one line each.
    static func problems(_ block: [String], _ package: PackageDump) -> [String] {
        var problems: [String] = []
        let targets = package.targets.filter { $0.type != "test" }
        let names = Set(targets.map(\.name))
        for name in block where !names.contains(name) {
            problems.append("docs/design.md lists \(name), which is no target of \(package.name)'s Package.swift")
        }
        for target in targets {
            let rows = block.indices.filter { block[$0] == target.name }
            guard let row = rows.first else {
                problems.append("docs/design.md does not list \(package.name)'s target \(target.name)")
                continue
            }
            if rows.count > 1 { problems.append("docs/design.md lists \(target.name) \(rows.count) times") }
            for dependency in target.targets {
                if let below = block.firstIndex(of: dependency), below < row {
                    problems.append("docs/design.md lists \(dependency) above \(target.name), which depends on it")
                }
            }
        }
        return problems
    }
}

@Suite struct TargetsDocTests {
    static func section() throws -> TargetsSection {
        let url = Checkout.root.appendingPathComponent("docs/design.md")
        return TargetsSection(markdown: try String(contentsOf: url, encoding: .utf8))
    }

    @Test func theClocksTargetsAreListedAboveTheirDependencies() throws {
        let section = try Self.section()
        let root = try PackageDump.load(Checkout.root)
        try #require(section.blocks.count == 2, "docs/design.md \"Targets\": two blocks, the clock's and the gateway's")
        var problems = TargetsSection.problems(section.blocks[0], root)
        for target in root.targets where target.type == "test" && !section.text.contains("`\(target.name)`") {
            problems.append("docs/design.md \"Targets\" does not name the test target `\(target.name)`")
        }
        for product in root.libraries where !section.text.contains("`\(product)`") {
            problems.append("docs/design.md \"Targets\" does not name the library product `\(product)`")
        }
        for problem in problems { Issue.record(Comment(rawValue: problem)) }
    }

    @Test(.enabled(if: Checkout.canReadGatewayManifest, "Gateway/Package.swift needs Swift 6.2"))
    func theGatewaysTargetsAreListedAboveTheirDependencies() throws {
        let section = try Self.section()
        let gateway = try PackageDump.load(Checkout.gateway, local: try PackageDump.load(Checkout.root))
        try #require(section.blocks.count == 2, "docs/design.md \"Targets\": two blocks, the clock's and the gateway's")
        var problems = TargetsSection.problems(section.blocks[1], gateway)
        for target in gateway.targets where target.type == "test" && !section.text.contains("`\(target.name)`") {
            problems.append("docs/design.md \"Targets\" does not name the gateway's test target `\(target.name)`")
        }
        for problem in problems { Issue.record(Comment(rawValue: problem)) }
    }
}
