/// Integers, floats ("Integer", "Float") and dates and times ("Offset Date-Time",
/// "Local Date-Time", "Local Date", "Local Time"; RFC 3339 section 5.6).
extension Parser {
    /// A number at the cursor, or `nil` (cursor unmoved) if there is none.
    mutating func number() throws(TOMLError) -> TOMLValue? {
        let start = pos
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] as [(StaticString, Int64)] where hasPrefix(prefix) {
            pos += 2
            guard digits(radix: radix) else { throw fail("\(prefix) must be followed by base-\(radix) digits, found \(found())") }
            guard let n = Int64(text(from: start + 2), radix: Int(radix)) else {
                throw fail("\(found(from: start)) is out of range; integers are 64-bit (at most 9223372036854775807)", at: start)
            }
            return .integer(n)
        }
        for special in ["inf", "+inf", "-inf", "nan", "+nan", "-nan"] as [StaticString] where hasPrefix(special) {
            pos += special.utf8CodeUnitCount
            return .float(special.description.hasSuffix("nan") ? .nan : special.description.hasPrefix("-") ? -.infinity : .infinity)
        }
        if peek() == .plus || peek() == .minus { pos += 1 }
        if peek() == UInt8(ascii: "0") {
            pos += 1
        } else if !digits(radix: 10) {
            pos = start
            return nil
        }
        var isFloat = false
        if peek() == .dot, let next = peek(1), isDigit(next) {
            pos += 1
            _ = digits(radix: 10)
            isFloat = true
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            let mark = pos
            pos += 1
            if peek() == .plus || peek() == .minus { pos += 1 }
            if digits(radix: 10) { isFloat = true } else { pos = mark }
        }
        let literal = text(from: start)
        if isFloat {
            guard let x = Double(literal) else { throw fail("\(found(from: start)) is not a valid float", at: start) }
            return .float(x)
        }
        guard let n = Int64(literal) else {
            throw fail("\(found(from: start)) is out of range; integers are 64-bit (-9223372036854775808 to 9223372036854775807)", at: start)
        }
        return .integer(n)
    }

    /// Digits of `radix` with single underscores between them; `false` if none.
    private mutating func digits(radix: Int64) -> Bool {
        guard let first = peek(), let value = digitValue(first), value < radix else { return false }
        pos += 1
        while let byte = peek() {
            if let value = digitValue(byte), value < radix {
                pos += 1
            } else if byte == .underscore, let next = peek(1), let value = digitValue(next), value < radix {
                pos += 2
            } else {
                break
            }
        }
        return true
    }

    /// The text from `start` to the cursor without underscores.
    private func text(from start: Int) -> String {
        String(decoding: bytes[start..<pos].filter { $0 != .underscore }, as: UTF8.self)
    }

    // MARK: Dates and times

    /// A date, date-time or time at the cursor, or `nil` (cursor unmoved) if there is none.
    mutating func dateOrTime() throws(TOMLError) -> TOMLValue? {
        let start = pos
        if let year = fixedDigits(4, at: pos), peek(4) == .minus, let month = fixedDigits(2, at: pos + 5),
           peek(7) == .minus, let day = fixedDigits(2, at: pos + 8) {
            let date = TOMLDate(year: year, month: month, day: day)
            guard (1...9999).contains(year), (1...12).contains(month), (1...daysIn(month, year)).contains(day) else {
                throw fail("\(found(from: start)) is not a valid date (year 0001 to 9999, a real month and day)", at: start)
            }
            pos += 10
            guard let delimiter = peek(), [UInt8(ascii: "T"), UInt8(ascii: "t"), .space].contains(delimiter),
                  fixedDigits(2, at: pos + 1) != nil, peek(3) == .colon else {
                return .localDate(date)
            }
            pos += 1
            let time = try timeOfDay(start: start)
            if peek() == UInt8(ascii: "Z") || peek() == UInt8(ascii: "z") {
                pos += 1
                return .offsetDateTime(date, time, offsetMinutes: 0)
            }
            if peek() == .plus || peek() == .minus, let hours = fixedDigits(2, at: pos + 1), peek(3) == .colon,
               let minutes = fixedDigits(2, at: pos + 4) {
                guard hours < 24, minutes < 60 else { throw fail("\(found(from: pos)) is not a valid time offset (-23:59 to +23:59)") }
                let sign = peek() == .minus ? -1 : 1
                pos += 6
                return .offsetDateTime(date, time, offsetMinutes: sign * (hours * 60 + minutes))
            }
            return .localDateTime(date, time)
        }
        if fixedDigits(2, at: pos) != nil, peek(2) == .colon {
            return .localTime(try timeOfDay(start: start))
        }
        return nil
    }

    /// `HH:MM:SS` with an optional fraction (truncated to nanoseconds).
    private mutating func timeOfDay(start: Int) throws(TOMLError) -> TOMLTime {
        guard let hour = fixedDigits(2, at: pos), peek(2) == .colon, let minute = fixedDigits(2, at: pos + 3), peek(5) == .colon,
              let second = fixedDigits(2, at: pos + 6) else {
            throw fail("\(found(from: start)) is not a valid time; use HH:MM:SS (seconds are required)", at: start)
        }
        guard hour < 24, minute < 60, second < 60 else {
            throw fail("\(found(from: start)) is not a valid time (00:00:00 to 23:59:59)", at: start)
        }
        pos += 8
        var nanosecond = 0
        if peek() == .dot, let next = peek(1), isDigit(next) {
            pos += 1
            var scale = 100_000_000
            while let byte = peek(), isDigit(byte) {
                nanosecond += scale * Int(byte - UInt8(ascii: "0"))
                scale /= 10
                pos += 1
            }
        }
        return TOMLTime(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
    }

    /// Exactly `count` decimal digits at `offset`, as a number.
    private func fixedDigits(_ count: Int, at offset: Int) -> Int? {
        guard offset + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[offset..<offset + count] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}

/// Gregorian month lengths (RFC 3339 section 5.7).
func daysIn(_ month: Int, _ year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
}

func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

private func digitValue(_ byte: UInt8) -> Int64? { hexDigitValue(byte).map(Int64.init) }
