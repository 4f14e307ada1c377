import ArgumentParser

/// Rejects NaN, infinities and values outside `range` with a message naming the option
/// (`roundclock-bench` options and `roundclock test-display --step`).
public func checkRange(_ value: Double, _ option: String, _ range: ClosedRange<Double>, unit: String = "") throws {
    guard value.isFinite, range.contains(value) else {
        throw ValidationError("\(option) must be between \(number(range.lowerBound))\(unit) and \(number(range.upperBound))\(unit), got \(number(value))")
    }
}

private func number(_ value: Double) -> String {
    value.magnitude < 1e15 && value == value.rounded() ? String(Int64(value)) : String(value)
}

/// `s` seconds, to the nanosecond; `s` must have passed `checkRange`.
public func seconds(_ s: Double) -> Duration { .nanoseconds(Int64((s * 1e9).rounded())) }
