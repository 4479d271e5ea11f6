import Foundation

extension Lifetime {
    /// How far before creation a KeyPackage becomes valid: one hour, absorbing clock skew (OpenMLS,
    /// marmot-wire §2.6).
    public static let keyPackageBackdate: UInt64 = 3_600
    /// How long after creation a KeyPackage stays valid: 84 days, as MDK 0.8.0 (marmot-wire §2.6).
    public static let keyPackageValidity: UInt64 = 84 * 24 * 3_600

    /// The window MDK gives a new KeyPackage: `now - 1 h ... now + 84 days` (marmot-wire §2.6).
    public static func keyPackageDefault(now: UInt64 = UnixTime.now) -> Lifetime {
        Lifetime(
            notBefore: now >= keyPackageBackdate ? now - keyPackageBackdate : 0,
            notAfter: now.addingReportingOverflow(keyPackageValidity).overflow ? .max : now + keyPackageValidity)
    }

    /// not_after - not_before, or nil when the window is inverted.
    public var duration: UInt64? { notAfter >= notBefore ? notAfter - notBefore : nil }
}

/// The current time in whole seconds since the Unix epoch, the unit of `Lifetime` (RFC 9420 §7.2).
public enum UnixTime {
    public static var now: UInt64 { UInt64(max(0, Date().timeIntervalSince1970)) }
}
