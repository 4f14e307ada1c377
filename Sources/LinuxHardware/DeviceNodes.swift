#if canImport(Glibc)
import Glibc
#endif

/// Names of `/dev` entries starting with `prefix` followed by a number, sorted by number.
func deviceNodes(prefix: String) -> [(path: String, number: Int)] {
    guard let dir = opendir("/dev") else { return [] }
    defer { closedir(dir) }
    var found: [(String, Int)] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        guard name.hasPrefix(prefix), let n = Int(name.dropFirst(prefix.count)) else { continue }
        found.append(("/dev/\(name)", n))
    }
    return found.sorted { $0.1 < $1.1 }
}
