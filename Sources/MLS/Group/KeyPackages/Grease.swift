import Foundation

/// The GREASE code points of RFC 9420 §13.5 (0x0A0A, 0x1A1A, …, 0xEAEA), reserved in every MLS registry
/// so that senders can sprinkle them into capabilities and receivers prove they ignore unknown values.
public enum Grease {
    /// All fifteen values, ascending.
    public static let values: [UInt16] = (0..<15).map { UInt16($0) * 0x1010 + 0x0A0A }

    /// True for a GREASE value: both bytes equal, each of the form 0x?A with ? in 0...E.
    public static func isGrease(_ value: UInt16) -> Bool {
        let high = UInt8(value >> 8), low = UInt8(value & 0xFF)
        return high == low && low & 0x0F == 0x0A && low >> 4 != 0xF
    }

    /// One value chosen uniformly at random.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> UInt16 {
        values[Int.random(in: 0..<values.count, using: &generator)]
    }

    /// One value from the system generator.
    public static func random() -> UInt16 {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }
}

extension CipherSuite {
    /// True for a GREASE code point (§13.5), which receivers must ignore.
    public var isGrease: Bool { Grease.isGrease(rawValue) }
}

extension ExtensionType {
    /// True for a GREASE code point (§13.5), which receivers must ignore.
    public var isGrease: Bool { Grease.isGrease(rawValue) }

    /// Types every client supports and must not list in Capabilities: 0x0001–0x0005 (§7.2).
    public var isDefault: Bool { (0x0001...0x0005).contains(rawValue) }
}

extension ProposalType {
    /// True for a GREASE code point (§13.5), which receivers must ignore.
    public var isGrease: Bool { Grease.isGrease(rawValue) }
}

extension CredentialType {
    /// True for a GREASE code point (§13.5), which receivers must ignore.
    public var isGrease: Bool { Grease.isGrease(rawValue) }
}
