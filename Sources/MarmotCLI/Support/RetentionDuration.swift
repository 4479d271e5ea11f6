import ArgumentParser

/// A disappearing-messages duration as typed: "off", plain seconds, or a number with one unit
/// (s, m, h, d, w).
struct RetentionDuration: ExpressibleByArgument, Equatable {
    let seconds: UInt64

    init(seconds: UInt64) { self.seconds = seconds }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "off" || text == "0" {
            seconds = 0
            return
        }
        let units: [Character: UInt64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        var digits = Substring(text)
        var unit: UInt64 = 1
        if let last = text.last, let size = units[last] {
            unit = size
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = UInt64(digits), count > 0 else { return nil }
        let (total, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow, total <= UInt64(Int64.max) else { return nil }
        seconds = total
    }
}
