import Foundation

/// Component ids of the Marmot v2 profile (foundation/registries.md; MDK `app_components/mod.rs`).
public enum MarmotComponentID {
    /// app_components: the supported (leaf) or required (GroupContext) component list.
    public static let appComponents: UInt16 = 0x0001
    /// safe_aad: advertised in leaves with an empty list.
    public static let safeAAD: UInt16 = 0x0002
    /// last_resort marker in a KeyPackage's dictionary.
    public static let lastResort: UInt16 = 0x0004
    public static let groupProfile: UInt16 = 0x8001
    public static let blossomImage: UInt16 = 0x8002
    public static let adminPolicy: UInt16 = 0x8003
    public static let nostrRouting: UInt16 = 0x8004
    public static let messageRetention: UInt16 = 0x8005
    public static let agentTextStream: UInt16 = 0x8006
    public static let avatarURL: UInt16 = 0x8007
    public static let encryptedMediaV1: UInt16 = 0x8008
    /// Leaf-only account identity proof; never GroupContext state.
    public static let accountIdentityProof: UInt16 = 0x8009
    public static let encryptedMediaV2: UInt16 = 0x800b
    public static let lifecycle: UInt16 = 0x800c

    /// Ids ≥ this are private-use and listed in a KeyPackage event's `app_components` tag.
    public static let privateUseStart: UInt16 = 0x8000

    /// The components this implementation understands in a GroupContext; a required id outside this
    /// set makes a Welcome unjoinable. 0x8006 is parsed only to be preserved; 0x800b is read by
    /// `EncryptedMediaPolicy` (groups we create require it); 0x8002 and 0x8007 are the group picture
    /// (`GroupBlossomImage`, `GroupAvatarURL`).
    public static let supported: Set<UInt16> = [
        appComponents, safeAAD, groupProfile, blossomImage, avatarURL, adminPolicy, nostrRouting, messageRetention, agentTextStream,
        accountIdentityProof, encryptedMediaV2, lifecycle,
    ]
}
