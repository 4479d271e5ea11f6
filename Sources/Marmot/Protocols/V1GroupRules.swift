import Foundation
import MLS
import Nostr

/// Marmot v1 (MIP-00..03 as MDK 0.8.0): NostrGroupData 0xF2EE, GroupContextExtensions commits,
/// handshakes as PrivateMessage, kind-445 tags `h` and `encoding`, MDK's admin rule (marmot-wire.md).
package struct V1GroupRules: GroupRules {
    package init() {}

    package var version: MarmotVersion { .v1 }
    package var configuration: GroupConfiguration { .marmot }
    package var media: any MediaScheme { V1MediaScheme() }
    package var groupImage: any GroupImageScheme { V1GroupImageScheme() }

    package func ownLeaf(keys: Keys, signer: SignaturePrivateKey) throws -> (capabilities: Capabilities, extensions: [Extension]) {
        (.marmotDefault(grease: true), [])
    }

    package func groupContextExtensions(_ metadata: GroupMetadata, invitees: [KeyPackage]) throws -> [Extension] {
        MarmotGroupExtensions.groupContextExtensions(groupData: Self.groupData(metadata), invitees: invitees)
    }

    package func metadata(of extensions: [Extension]) throws -> GroupMetadata {
        let data = try NostrGroupData(groupContextExtensions: extensions)
        return GroupMetadata(
            nostrGroupID: data.nostrGroupID, name: data.name, description: data.groupDescription, admins: data.admins,
            relays: data.relays, image: Self.image(of: data))
    }

    /// The picture the image fields name when hash, key and nonce are set (the upload key only
    /// manages the blob, and mdk-python 0.8.0's `GroupDataUpdate` cannot set it); otherwise none
    /// (MDK 0.8.0 clears them together, marmot-wire §3.4).
    static func image(of data: NostrGroupData) -> GroupImage? {
        guard let hash = data.imageHash, let key = data.imageKey, let nonce = data.imageNonce else {
            if data.imageHash != nil { MarmotLog.groupData.notice("group image fields are partly set; no picture shown") }
            return nil
        }
        return try? GroupImage(blobSHA256: hash, key: key, nonce: nonce, uploadKey: data.imageUploadKey)
    }

    /// MIP-01 has no lifecycle: a v1 group cannot be disbanded.
    package func disbandProposals(_ group: MLSGroup, me: PublicKey) throws -> [Proposal] {
        throw GroupChangeError.unsupportedInV1("disbanding")
    }

    /// One GroupContextExtensions proposal with the 0xF2EE value replaced; the other extensions are
    /// kept, and the image fields too unless the picture changes (MIP-01).
    package func proposals(changing extensions: [Extension], to metadata: GroupMetadata) throws -> [Proposal] {
        guard metadata.retention == 0 else { throw GroupChangeError.unsupportedInV1("disappearing messages") }
        guard !metadata.disbanded else { throw GroupChangeError.unsupportedInV1("disbanding") }
        var data = try NostrGroupData(groupContextExtensions: extensions)
        data.nostrGroupID = metadata.nostrGroupID
        data.name = metadata.name
        data.groupDescription = metadata.groupDescription
        data.admins = metadata.admins
        data.relays = metadata.relays
        if metadata.image != Self.image(of: data) {
            // Set together, cleared together (MDK clears key, nonce and upload key with the hash).
            data.imageHash = metadata.image?.blobSHA256
            data.imageKey = metadata.image?.key
            data.imageNonce = metadata.image?.nonce
            data.imageUploadKey = metadata.image?.uploadKey
        }
        let encoded = Extension(data)
        var updated = extensions
        if let index = updated.firstIndex(where: { $0.type == encoded.type }) {
            updated[index] = encoded
        } else {
            updated.insert(encoded, at: 0)
        }
        return [.groupContextExtensions(GroupContextExtensions(extensions: updated))]
    }

    /// v1 groups have no retention, so `expiration` is always nil here.
    package func groupEvent(
        _ message: MLSMessage, nostrGroupID: NostrGroupID, key: GroupEventKey, createdAt: Int64, expiration: Int64?
    ) throws -> Event {
        try GroupEvent.build(
            mlsMessage: message.tlsSerialized, nostrGroupID: nostrGroupID, key: key, createdAt: createdAt, expiration: expiration)
    }

    /// The time of sending, as MDK 0.8.0 dates its envelopes: its receivers refuse one older than
    /// 45 days, which a message sent again long after it was written would be (marmot-wire §5.5).
    package func outerCreatedAt(inner: Int64, now: Int64) -> Int64 { now }

    /// Admins only, as MDK 0.8.0 (a non-admin's commit other than a self-update is refused by its
    /// peers, marmot-wire §5.5).
    package func commitsLeaves(asAdmin isAdmin: Bool) -> Bool { isAdmin }

    package func validateEnvelope(_ event: Event, now: Int64, window: GroupEvent.TimeWindow) throws(DropReason) -> ValidatedGroupEvent {
        do { return try GroupEvent.validate(event, now: now, window: window) } catch { throw .invalidGroupEvent(error) }
    }

    package func rumor(_ plaintext: Data, sender: PublicKey) throws(DropReason) -> ChatRumor {
        do { return try ChatRumor(plaintext: plaintext, sender: sender) } catch { throw .invalidRumor(error) }
    }

    /// §5.5 step 6: an admin may commit anything that leaves an admin in the group; anyone else only
    /// a pure self-update or a SelfRemove-only commit.
    package func authorize(_ summary: CommitSummary, message: MLSMessage, before: MLSGroup, after: MLSGroup) throws(DropReason) {
        let committer = before.member(at: summary.committer).flatMap { NostrIdentity.publicKey($0.credential) }
        let isAdmin = committer.map { metadataIfValid(before.extensions)?.isAdmin($0) ?? false } ?? false
        if !isAdmin, !summary.isMemberCommit {
            throw .unauthorizedCommit("\(committer?.hex ?? "an unknown member") is not an admin")
        }
        try requireAdminLeft(after: after)
    }

    /// How much earlier than the applied commit's first wrapper a competitor (or a re-wrapped copy)
    /// may be dated, in seconds. MDK 0.8.0 lets the earliest created_at win (§5.7), and the outer
    /// event is signed by a throw-away key, so a relay could otherwise re-sign any commit with an
    /// earlier date and pick the winner; honest clocks and relay delays stay well inside 300 s.
    static let backdatingBound: Int64 = 300

    /// §5.7 (MDK 0.8.0): the earlier created_at wins, then the lower hex id; a competitor dated
    /// more than `backdatingBound` before the applied commit's first wrapper is refused.
    package func race(_ competitor: Event, key: CommitOrderingKey, against applied: EpochSnapshot, branches: CompetingBranches) -> RaceVerdict {
        let earliest = applied.anchorCreatedAt - Self.backdatingBound
        guard competitor.createdAt >= earliest else {
            return .refused("dated \(applied.anchorCreatedAt - competitor.createdAt) s before the applied commit (bound \(Self.backdatingBound) s)")
        }
        return applied.isBeaten(by: competitor) ? .wins : .loses
    }

    /// The reference moves to an earlier copy (as MDK does, so both sides compare later competitors
    /// alike), but never to one dated more than `backdatingBound` before the first wrapper.
    package func raceReference(_ applied: EpochSnapshot, afterCopy copy: Event) -> EpochSnapshot? {
        guard copy.createdAt >= applied.anchorCreatedAt - Self.backdatingBound, applied.isBeaten(by: copy) else { return nil }
        return applied.rewrapped(as: copy)
    }

    /// No: only traffic that opens on another branch moves us (MDK 0.8.0 stays where its own is).
    package var settlesByEvidence: Bool { false }
    package var mutualRevocation: MutualRevocation { .leaveBothOut }

    /// The other branch's first commit (the one that races ours) needs its committer's authority
    /// on the state we are in: a member there, and an admin there when the commit needs one
    /// (issue 24's v1 rule; `authorizeOnBranch`).
    package func authorizeBranch(_ theirs: [BranchStep], tip: MLSGroup) throws(DropReason) {
        guard let key = theirs.first?.key else { return }
        try authorizeOnBranch(key, branch: tip)
    }

    /// The candidate when its first commit removes the committer of the commit of ours it races,
    /// or demotes it and ours needed an admin; otherwise §5.7 (`race`) decides a competing commit,
    /// and traffic that opens only on a kept branch moves us there (MDK 0.8.0 keeps its own commit
    /// in a race whatever §5.7 says, so the branch its traffic is on is where it stays).
    package func pick(_ held: HeldBranches) -> HeldBranches.Pick? {
        held.candidateRevokesOurFirstCommit ? .candidate : nil
    }

    /// Traffic of a later epoch on our branch settles the fork: the other member is with us.
    package func forkStaysOpen(forkEpoch: UInt64, trafficEpoch epoch: UInt64) -> Bool { epoch <= forkEpoch }

    /// MDK 0.8.0 commits only SelfRemove proposals of members; Update and GroupContextExtensions
    /// proposals of others are ignored (marmot-wire §5.5 step 5).
    package func willCommit(_ proposal: PendingProposal, in group: MLSGroup) -> Bool {
        guard case .member = proposal.sender else { return false }
        if case .selfRemove = proposal.proposal { return true }
        return false
    }

    /// The seal's signer must hold a leaf whose credential is its own Nostr identity, be listed as an
    /// admin in the group data, and not be us (MIP-02, as MDK requires).
    package func unacceptableJoin(_ mls: MLSGroup, sender: PublicKey, groupInfoSigner: LeafIndex, me: PublicKey) -> String? {
        guard let metadata = metadataIfValid(mls.extensions) else { return "the group data does not parse" }
        return Self.unprovenInviter(sender, of: mls, admins: metadata.admins, me: me)
    }

    /// Why `sender` is not a proven inviter: it must hold a leaf with its own identity, be an admin,
    /// and not be us (except another device of ours, an admin account, adding us next to its own
    /// leaf); every credential must be a Nostr identity and, from another account, ours must
    /// appear once.
    static func unprovenInviter(_ sender: PublicKey, of mls: MLSGroup, admins: [PublicKey], me: PublicKey) -> String? {
        unprovenInviter(sender, identities: mls.members.map { NostrIdentity.publicKey($0.credential) }, admins: admins, me: me)
    }

    /// `unprovenInviter` over the members' identities (nil: a credential that is not a Nostr
    /// identity), so it can run on a Welcome's tree before that tree is validated.
    static func unprovenInviter(_ sender: PublicKey, identities all: [PublicKey?], admins: [PublicKey], me: PublicKey) -> String? {
        let identities = all.compactMap { $0 }
        guard identities.count == all.count else { return "a member's credential is not a Nostr identity" }
        // A seal signed by our own key comes from another device of this account (issue 29): our
        // Notes chat, or a chat where our account is admin and that device added us ("add my other
        // devices"); either way the group holds that device's leaf and ours, both our npub.
        if sender == me {
            guard admins.contains(me) else { return "the sender \(sender.hex) is not an admin of the group" }
            guard identities.filter({ $0 == me }).count >= 2 else { return "the Welcome claims to come from ourselves" }
            return nil
        }
        guard identities.contains(sender) else { return "the sender \(sender.hex) is not a member of the group" }
        guard admins.contains(sender) else { return "the sender \(sender.hex) is not an admin of the group" }
        guard identities.filter({ $0 == me }).count == 1 else { return "our identity appears in more than one leaf" }
        return nil
    }

    package func wrapWelcome(
        _ welcome: Welcome, author: Keys, invitee: PeerKeyPackage, relays: [RelayURL], client: String?, createdAt: Int64
    ) throws -> Event {
        try WelcomeRumor.wrap(
            welcome: welcome, author: author, invitee: invitee, relays: relays, client: client, createdAt: createdAt
        ).giftWrap
    }

    static func groupData(_ metadata: GroupMetadata) -> NostrGroupData {
        NostrGroupData(
            nostrGroupID: metadata.nostrGroupID, name: metadata.name, description: metadata.groupDescription,
            admins: metadata.admins, relays: metadata.relays)
    }
}
