/// A table while the document is read, with how it came to be: that decides what may
/// still be added to it ("Table" and "Array of Tables" sections of the spec).
final class TableNode {
    enum Origin {
        /// Created on the way to a deeper header (`[a.b]` creates `a`): may get its own header once.
        case implicit
        /// Defined by `[header]` or `[[header]]`: never defined again, never extended by dotted keys.
        case header
        /// Created by dotted keys (`a.b = 1` creates `a`): no header may define it afterwards.
        case dotted
        /// `{ ... }`: frozen once its closing brace is read.
        case inline
    }

    enum Entry {
        case value(TOMLValue)
        case table(TableNode)
        /// `[[name]]`: the last element is the one later headers and keys go to.
        case tables(TableList)
    }

    final class TableList {
        var elements: [TableNode]
        init(_ first: TableNode) { elements = [first] }
    }

    var origin: Origin
    private var keys: [String] = []
    private var entries: [TOMLKey: Entry] = [:]
    /// The line of the statement that first named each key.
    private var lines: [TOMLKey: Int] = [:]

    init(_ origin: Origin) { self.origin = origin }

    subscript(key: String) -> Entry? { entries[TOMLKey(key)] }

    func add(_ key: String, _ entry: Entry, line: Int) {
        keys.append(key)
        entries[TOMLKey(key)] = entry
        lines[TOMLKey(key)] = line
    }

    /// The finished table. Depth is bounded by `TOML.maximumDepth` while reading.
    func freeze() -> TOMLTable {
        var table = TOMLTable()
        for key in keys {
            let line = lines[TOMLKey(key)]
            switch entries[TOMLKey(key)] {
            case .value(let value): table.append(key, value, line: line)
            case .table(let node): table.append(key, .table(node.freeze()), line: line)
            case .tables(let list): table.append(key, .array(list.elements.map { .table($0.freeze()) }), line: line)
            case nil: break
            }
        }
        return table
    }
}

/// The rules that decide whether a header or a key may define what it names.
extension TableNode {
    /// `key = value` with a dotted key, relative to this table, written on `line`.
    func insert(_ path: [String], _ value: TOMLValue, line: Int) throws(DefinitionError) {
        var node = self
        for (index, part) in path.dropLast().enumerated() {
            let named = Array(path[...index])
            switch node[part] {
            case nil:
                let child = TableNode(.dotted)
                node.add(part, .table(child), line: line)
                node = child
            case .table(let child) where child.origin == .header:
                throw DefinitionError(path: named, "table [\(render(named))] is defined by its header; add keys under that header, not with a dotted key")
            case .table(let child):
                if child.origin == .implicit { child.origin = .dotted }
                node = child
            case .tables:
                throw DefinitionError(path: named, "\(render(named)) is an array of tables ([[\(render(named))]]); a dotted key cannot add to it")
            case .value(let existing):
                throw DefinitionError(path: named, existing.cannotExtend(named))
            }
        }
        guard let last = path.last else { return }
        guard case .none = node[last] else { throw DefinitionError(path: path, "\(render(path)) is already defined; each key is defined once") }
        node.add(last, .value(value), line: line)
    }

    /// `[path]` on `line`: the table the following keys go to.
    func defineTable(_ path: [String], line: Int) throws(DefinitionError) -> TableNode {
        let (parent, last) = try walkToParent(path, line: line)
        switch parent[last] {
        case nil:
            let table = TableNode(.header)
            parent.add(last, .table(table), line: line)
            return table
        case .table(let table) where table.origin == .implicit:
            table.origin = .header
            return table
        case .table(let table):
            let how = table.origin == .dotted ? " by dotted keys" : ""
            throw DefinitionError(path: path, "table [\(render(path))] is already defined\(how); each table is defined once")
        case .tables:
            throw DefinitionError(path: path, "\(render(path)) is an array of tables ([[\(render(path))]]); [\(render(path))] cannot define it again")
        case .value(let existing):
            throw DefinitionError(path: path, existing.cannotExtend(path))
        }
    }

    /// `[[path]]` on `line`: a new element of the array of tables, which the following keys go to.
    func appendTable(_ path: [String], line: Int) throws(DefinitionError) -> TableNode {
        let (parent, last) = try walkToParent(path, line: line)
        let table = TableNode(.header)
        switch parent[last] {
        case nil:
            parent.add(last, .tables(TableList(table)), line: line)
        case .tables(let list):
            list.elements.append(table)
        case .table:
            throw DefinitionError(path: path, "\(render(path)) is a table; [[\(render(path))]] cannot make it an array of tables")
        case .value(let existing):
            throw DefinitionError(path: path, existing.cannotExtend(path))
        }
        return table
    }

    /// Follows a header's key to the table holding its last part, creating implicit tables.
    private func walkToParent(_ path: [String], line: Int) throws(DefinitionError) -> (TableNode, String) {
        var node = self
        for (index, part) in path.dropLast().enumerated() {
            switch node[part] {
            case nil:
                let child = TableNode(.implicit)
                node.add(part, .table(child), line: line)
                node = child
            case .table(let child):
                node = child
            case .tables(let list):
                guard let last = list.elements.last else { return (node, part) }
                node = last
            case .value(let existing):
                throw DefinitionError(path: Array(path[...index]), existing.cannotExtend(Array(path[...index])))
            }
        }
        return (node, path.last ?? "")
    }
}

/// A key or header that redefines or extends what it may not.
struct DefinitionError: Error {
    var path: [String]
    var message: String
    init(path: [String], _ message: String) {
        self.path = path
        self.message = message
    }
}

extension TOMLValue {
    /// Why a value cannot be turned into (or extended as) a table.
    func cannotExtend(_ path: [String]) -> String {
        switch self {
        case .table: "\(render(path)) is an inline table, which cannot be extended or defined again"
        case .array: "\(render(path)) is an array value, which cannot be extended or defined again"
        default: "\(render(path)) already holds a value"
        }
    }
}

/// A key as TOML writes it: bare parts as they are, others as escaped basic strings.
func render(_ path: [String]) -> String {
    path.map { part in
        let bare = !part.isEmpty && part.utf8.allSatisfy(isBareKeyByte)
        return bare ? part : escapedBasicString(part)
    }.joined(separator: ".")
}

/// `A-Za-z0-9_-` ("Keys" section).
func isBareKeyByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
         UInt8(ascii: "_"), UInt8(ascii: "-"): true
    default: false
    }
}
