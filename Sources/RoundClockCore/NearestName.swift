/// The name a mistyped one most likely meant, for "did you mean" hints.
public enum NearestName {
    /// The candidate at the smallest edit distance (insertions, deletions, substitutions;
    /// case ignored) from `typed`, when that distance is at most 2 and less than half the
    /// candidate's length; the first of equals; `nil` when none is that close or `typed` is
    /// one of them.
    public static func of(_ typed: String, among candidates: [String]) -> String? {
        let word = Array(typed.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word, Array(candidate.lowercased()))
            if distance == 0 { return nil }
            guard distance <= 2, distance * 2 < candidate.count else { continue }
            if best.map({ distance < $0.distance }) ?? true { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance, one row at a time.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var diagonal = row[0]
            row[0] = i + 1
            for (j, y) in b.enumerated() {
                let next = min(row[j + 1] + 1, row[j] + 1, diagonal + (x == y ? 0 : 1))
                diagonal = row[j + 1]
                row[j + 1] = next
            }
        }
        return row[b.count]
    }
}
