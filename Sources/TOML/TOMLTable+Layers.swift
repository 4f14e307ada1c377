/// Tables laid over one another (a file's settings under a layer that overrides some of them)
/// and written back as a document.
extension TOMLTable {
    /// This table with `top`'s keys laid over it: where both hold a table the two are laid
    /// over one another, key by key; anywhere else `top`'s value replaces this one's. Keys
    /// keep this table's order, `top`'s new ones follow; this table's keys keep their lines.
    public func overlaid(by top: TOMLTable) -> TOMLTable {
        var out = TOMLTable()
        for key in keys {
            guard let mine = self[key] else { continue }
            switch (mine, top[key]) {
            case (.table(let below), .table(let above)?): out.append(key, .table(below.overlaid(by: above)), line: line(of: key))
            case (_, let above?): out.append(key, above)
            case (_, nil): out.append(key, mine, line: line(of: key))
            }
        }
        for key in top.keys where self[key] == nil {
            if let value = top[key] { out.append(key, value) }
        }
        return out
    }

    /// The value at a dotted path (`["brightness", "day"]`), through tables only.
    public subscript(path path: [String]) -> TOMLValue? {
        guard let first = path.first, let value = self[first] else { return nil }
        guard path.count > 1 else { return value }
        return value.table?[path: Array(path.dropFirst())]
    }

    /// This table with the value at `path` set (tables on the way made as needed) or, with
    /// `nil`, removed (a table left empty goes too). `path` must not be empty.
    public func setting(_ path: [String], to value: TOMLValue?) -> TOMLTable {
        guard let first = path.first else { return self }
        let next: TOMLValue?
        if path.count == 1 {
            next = value
        } else {
            let inner = (self[first]?.table ?? TOMLTable()).setting(Array(path.dropFirst()), to: value)
            next = inner.isEmpty ? nil : .table(inner)
        }
        var out = TOMLTable()
        for key in keys where key != first || next != nil {
            guard let kept = key == first ? next : self[key] else { continue }
            out.append(key, kept, line: key == first ? nil : line(of: key))
        }
        if self[first] == nil, let next { out.append(first, next) }
        return out
    }

    /// The dotted path of every value that is not a table, in document order, tables' after
    /// their parent's values (as `documentText` writes them).
    public var valuePaths: [[String]] {
        var out: [[String]] = []
        for key in keys where self[key]?.table == nil { out.append([key]) }
        for key in keys {
            guard let table = self[key]?.table else { continue }
            out += table.valuePaths.map { [key] + $0 }
        }
        return out
    }

    /// The table as a TOML document: its values, then a `[header]` per table holding values.
    /// Arrays are written inline, so an array of tables becomes an inline array of inline tables.
    public var documentText: String {
        var lines: [String] = []
        write(into: &lines, prefix: [])
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    private func write(into lines: inout [String], prefix: [String]) {
        let values = keys.filter { self[$0]?.table == nil }
        if !prefix.isEmpty, !values.isEmpty {
            if !lines.isEmpty { lines.append("") }
            lines.append("[\(render(prefix))]")
        }
        for key in values {
            guard let value = self[key] else { continue }
            lines.append("\(render([key])) = \(value.inlineText(limit: Int.max))")
        }
        for key in keys {
            self[key]?.table?.write(into: &lines, prefix: prefix + [key])
        }
    }
}
