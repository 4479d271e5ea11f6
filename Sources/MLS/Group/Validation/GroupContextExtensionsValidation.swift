import Foundation

/// Why a new set of GroupContext extensions cannot be adopted (RFC 9420 §11.1, §12.1.7, §13.4).
public enum GroupContextExtensionsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Two extensions of one type (§13.4).
    case duplicateExtension(ExtensionType)
    /// A GREASE extension type, which must not appear in a GroupContext (§13.5).
    case greaseExtension(ExtensionType)
    /// A required_capabilities extension whose data does not decode.
    case malformedRequiredCapabilities
    /// The member at this leaf does not support a required capability or an extension type of the
    /// new GroupContext.
    case unsupportedByMember(LeafIndex, Capability)

    public var description: String {
        switch self {
        case .duplicateExtension(let t): "GroupContext extension \(t) appears twice"
        case .greaseExtension(let t): "GroupContext extension \(t) is a GREASE value"
        case .malformedRequiredCapabilities: "required_capabilities extension is malformed"
        case .unsupportedByMember(let l, let c): "member at \(l) does not support \(c)"
        }
    }
}

/// The checks a GroupContextExtensions proposal, or a group's initial extensions, must pass against
/// the members that will hold the new context.
public enum GroupContextExtensionsValidation {
    /// Checks that `extensions` has no GREASE type (§13.5) and no duplicate type, that its required_capabilities (if any) decodes
    /// and is supported by every member (§11.1, §12.1.7), and that every member's capabilities list
    /// each non-default extension type it contains (§13.4).
    public static func validate<S: Sequence>(
        _ extensions: [Extension], members: S
    ) throws(GroupContextExtensionsError) where S.Element == (index: LeafIndex, leaf: LeafNode) {
        var seen = Set<ExtensionType>()
        for ext in extensions {
            guard !ext.type.isGrease else { throw .greaseExtension(ext.type) }
            guard seen.insert(ext.type).inserted else { throw .duplicateExtension(ext.type) }
        }
        let required: RequiredCapabilities?
        do {
            required = try RequiredCapabilities.from(extensions)
        } catch {
            throw .malformedRequiredCapabilities
        }
        for (index, leaf) in members {
            if let required, let missing = leaf.capabilities.firstMissing(of: required) {
                throw .unsupportedByMember(index, missing)
            }
            for ext in extensions where !ext.type.isGrease && !leaf.capabilities.supports(.extensionType(ext.type)) {
                throw .unsupportedByMember(index, .extensionType(ext.type))
            }
        }
    }

    /// `validate(_:members:)` over the members of `tree`, minus the leaves in `excluding`.
    public static func validate(
        _ extensions: [Extension], tree: RatchetTree, excluding: Set<LeafIndex> = []
    ) throws(GroupContextExtensionsError) {
        try validate(extensions, members: tree.leaves.filter { !excluding.contains($0.index) })
    }
}
