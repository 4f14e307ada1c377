import Foundation
import Testing

// Declared dependencies equal imports, in both packages: every module a target's Swift files
// import is a dependency in its Package.swift, and every dependency is imported by one of its
// files. Package.swift is read with `swift package dump-package`; the imports line by line.

/// A package's targets as `swift package dump-package` gives them.
struct PackageDump {
    struct Target {
        var name: String
        var type: String
        /// Relative to the package.
        var path: String
        var exclude: [String]
        /// Module names, a product of a dependency standing for its targets' modules.
        var dependencies: Set<String>
        /// Dependencies on executables: they are built for the test to run, not imported.
        var executables: Set<String>
        /// The names of the targets of this package it depends on.
        var targets: [String]
    }

    var name: String
    var directory: URL
    var targets: [Target]
    /// Product name → module names.
    var products: [String: [String]]
    /// The library products' names.
    var libraries: [String]

    /// Reads `directory`'s Package.swift; `local` is a package it depends on by path, whose
    /// products it maps to their targets' modules (other packages' products are modules of
    /// the same name).
    static func load(_ directory: URL, local: PackageDump? = nil) throws -> PackageDump {
        let json = try JSONSerialization.jsonObject(with: try dumpPackage(directory))
        guard let package = json as? [String: Any], let name = package["name"] as? String,
              let targets = package["targets"] as? [[String: Any]], let products = package["products"] as? [[String: Any]]
        else { throw DumpError("\(directory.path): dump-package gave no name, targets or products") }
        var productModules: [String: [String]] = [:]
        var libraries: [String] = []
        for product in products {
            guard let name = product["name"] as? String else { continue }
            productModules[name] = (product["targets"] as? [String] ?? []).map(moduleName)
            if (product["type"] as? [String: Any])?["library"] != nil { libraries.append(name) }
        }
        let types = Dictionary(targets.compactMap { t in (t["name"] as? String).map { ($0, t["type"] as? String ?? "") } },
                               uniquingKeysWith: { a, _ in a })
        var out: [Target] = []
        for target in targets {
            guard let targetName = target["name"] as? String, let type = target["type"] as? String else {
                throw DumpError("\(directory.path): a target without name or type")
            }
            var modules: Set<String> = []
            var executables: Set<String> = []
            var inPackage: [String] = []
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                guard let (kind, value) = dependency.first, let fields = value as? [Any], let depName = fields.first as? String else {
                    throw DumpError("\(targetName): a dependency dump-package wrote as \(dependency)")
                }
                if kind == "product" {
                    let package = fields.count > 1 ? fields[1] as? String : nil
                    if let local, package == local.name {
                        guard let mapped = local.products[depName] else { throw DumpError("\(targetName): \(local.name) has no product \(depName)") }
                        modules.formUnion(mapped)
                    } else {
                        modules.insert(moduleName(depName))
                    }
                } else {
                    modules.insert(moduleName(depName))
                    if types[depName] == "executable" { executables.insert(moduleName(depName)) }
                    if types[depName] != nil { inPackage.append(depName) }
                }
            }
            let defaultPath = (type == "test" ? "Tests/" : type == "plugin" ? "Plugins/" : "Sources/") + targetName
            out.append(Target(name: targetName, type: type, path: target["path"] as? String ?? defaultPath,
                              exclude: target["exclude"] as? [String] ?? [], dependencies: modules, executables: executables,
                              targets: inPackage))
        }
        return PackageDump(name: name, directory: directory, targets: out, products: productModules, libraries: libraries)
    }

    /// A target's module name: `roundclock-bench` is imported as `roundclock_bench`.
    static func moduleName(_ targetName: String) -> String {
        String(targetName.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }

    /// `swift package dump-package`, with a scratch path of its own (the `swift test` that
    /// runs this holds the package's `.build` lock) and a TMPDIR of its own for the lock
    /// files SwiftPM leaves there; both are removed.
    static func dumpPackage(_ directory: URL) throws -> Data {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-package-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let errorFile = scratch.appendingPathComponent("stderr")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil) else { throw DumpError("cannot create \(errorFile.path)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["timeout", "300", "swift", "package", "--scratch-path", scratch.appendingPathComponent("build").path,
                             "dump-package"]
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.path]) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            throw DumpError("swift package dump-package in \(directory.path) exited \(process.terminationStatus): \(errors)")
        }
        return data
    }

    struct DumpError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// The modules a Swift file imports: `required` must be declared; `optional` ones sit under
/// `#if canImport(M)` for their own M and may be declared or not (a dependency that only
/// some toolchains resolve).
struct FileImports: Equatable {
    var required: Set<String> = []
    var optional: Set<String> = []

    /// Modules of the toolchain and the system, never declared.
    static let system: Set<String> = [
        "Swift", "_Concurrency", "_StringProcessing", "_Volatile", "_Differentiation", "Synchronization", "RegexBuilder",
        "Observation", "Distributed", "Cxx", "CxxStdlib", "Glibc", "Musl", "Android", "Bionic", "WASILibc", "Darwin",
        "SwiftGlibc", "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
        "FoundationXML", "Dispatch", "XCTest", "Testing",
    ]
    static let modifiers: Set<String> = ["public", "package", "internal", "private", "fileprivate"]
    static let tripleQuote = String(repeating: "\"", count: 3)
    static let kinds: Set<String> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func", "actor"]

    /// Reads `import` lines (with attributes such as `@testable` or `@_spi(X)`, an access
    /// level, or a kind: `import struct M.T`), outside comments and multi-line strings.
    init(source: String) {
        var guards: [String] = []  // the condition of each enclosing #if branch
        var inString = false
        var inComment = false
        for rawLine in source.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = Substring(rawLine)
            if inComment {
                guard let end = line.range(of: "*/") else { continue }
                inComment = false
                line = line[end.upperBound...]
            }
            if line.components(separatedBy: Self.tripleQuote).count % 2 == 0 {  // opens or closes one
                inString.toggle()
                continue
            }
            if inString { continue }
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            if let start = line.range(of: "/*") {
                if line[start.upperBound...].range(of: "*/") == nil { inComment = true }
                line = line[..<start.lowerBound]
            }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let first = words.first else { continue }
            switch first {
            case "#if": guards.append(words.dropFirst().joined(separator: " "))
            case "#elseif": if !guards.isEmpty { guards[guards.count - 1] = words.dropFirst().joined(separator: " ") }
            case "#else": if !guards.isEmpty { guards[guards.count - 1] = "" }
            case "#endif": _ = guards.popLast()
            default:
                guard let module = Self.importedModule(words), !Self.system.contains(module) else { continue }
                if guards.contains(where: { Self.guardsImport($0, of: module) }) {
                    optional.insert(module)
                } else {
                    required.insert(module)
                }
            }
        }
    }

    init(required: Set<String>, optional: Set<String> = []) {
        self.required = required
        self.optional = optional
    }

    /// The module of an import declaration's words, or nil.
    static func importedModule(_ words: [String]) -> String? {
        var rest = words[...]
        while let word = rest.first, word.hasPrefix("@") || modifiers.contains(word) { rest = rest.dropFirst() }
        guard rest.first == "import" else { return nil }
        rest = rest.dropFirst()
        if let word = rest.first, kinds.contains(word) { rest = rest.dropFirst() }
        guard let path = rest.first, let module = path.split(separator: ".").first,
              module.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return String(module)
    }

    /// `condition` is `canImport(module)` or has it among others.
    static func guardsImport(_ condition: String, of module: String) -> Bool {
        let compact = condition.filter { $0 != " " }
        return compact.contains("canImport(\(module))") || compact.contains("canImport(\(module),")
    }
}

/// What differs between a package's declared dependencies and its imports, one line each.
func dependencyProblems(_ package: PackageDump) throws -> [String] {
    var problems: [String] = []
    var swiftTargets = 0
    for target in package.targets where target.type != "system" {
        let directory = package.directory.appendingPathComponent(target.path)
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else {
            problems.append("\(package.name): target \(target.name): no directory \(target.path)")
            continue
        }
        var firstImporter: [String: String] = [:]
        var optional: Set<String> = []
        while let entry = walker.nextObject() as? String {
            guard entry.hasSuffix(".swift"),
                  !target.exclude.contains(where: { entry == $0 || entry.hasPrefix($0 + "/") }) else { continue }
            let text = try String(contentsOf: directory.appendingPathComponent(entry), encoding: .utf8)
            let imports = FileImports(source: text)
            for module in imports.required where firstImporter[module] == nil { firstImporter[module] = "\(target.path)/\(entry)" }
            optional.formUnion(imports.optional)
        }
        if !firstImporter.isEmpty || !optional.isEmpty || !target.dependencies.isEmpty { swiftTargets += 1 }
        let ownModule = PackageDump.moduleName(target.name)
        for module in firstImporter.keys.sorted() where !target.dependencies.contains(module) && module != ownModule {
            problems.append("\(package.name): target \(target.name) imports \(module) (\(firstImporter[module]!)), "
                            + "which its Package.swift does not declare as a dependency")
        }
        let unused = target.dependencies.subtracting(firstImporter.keys).subtracting(optional).subtracting(target.executables)
        for module in unused.sorted() {
            problems.append("\(package.name): target \(target.name) declares the dependency \(module), "
                            + "which no Swift file in \(target.path) imports")
        }
    }
    if swiftTargets == 0 { problems.append("\(package.name): no target with Swift files found") }
    return problems
}

enum Checkout {
    /// This file is `Tests/PackageTests/DeclaredDependencyTests.swift`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let gateway = root.appendingPathComponent("Gateway")
    /// Gateway/Package.swift is swift-tools-version 6.2.
    static let canReadGatewayManifest: Bool = {
        #if compiler(>=6.2)
        return true
        #else
        return false
        #endif
    }()
}

@Suite struct DeclaredDependencyTests {
    @Test func theClockDeclaresWhatItImports() throws {
        let root = try PackageDump.load(Checkout.root)
        #expect(root.targets.count > 20)
        for problem in try dependencyProblems(root) { Issue.record(Comment(rawValue: problem)) }
    }

    @Test(.enabled(if: Checkout.canReadGatewayManifest, "Gateway/Package.swift needs Swift 6.2"))
    func theGatewayDeclaresWhatItImports() throws {
        let root = try PackageDump.load(Checkout.root)
        let gateway = try PackageDump.load(Checkout.gateway, local: root)
        #expect(gateway.targets.count > 5)
        for problem in try dependencyProblems(gateway) { Issue.record(Comment(rawValue: problem)) }
    }

    @Test func importLinesAreReadWithTheirForms() {
        let source = """
            // import Commented
            /* import Blocked
               import AlsoBlocked */
            import Plain
            @testable import Tested
            @_spi(Internal) import Spied
            @preconcurrency internal import Modified
            import struct Kinded.Thing
            import Dotted.Sub // trailing comment
            import Glibc
            import Foundation
            #if canImport(Optional)
            import Optional
            #else
            import Fallback
            #endif
            #if os(Linux)
            import OnLinux
            #endif
            let text = \"\"\"
                import InAString
                \"\"\"
            func importNothing() {}
            """
        #expect(FileImports(source: source) == FileImports(
            required: ["Plain", "Tested", "Spied", "Modified", "Kinded", "Dotted", "Fallback", "OnLinux"],
            optional: ["Optional"]))
    }
}
