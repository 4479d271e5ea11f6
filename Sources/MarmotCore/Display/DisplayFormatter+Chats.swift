import Nostr

/// Wording of chats that are not plain 1:1s, of system lines and of invitations; computed here so
/// every renderer says the same thing.
extension DisplayFormatter {
    /// A person as a line shows them: "You" for this account, else the short npub.
    public func person(_ key: PublicKey, me: PublicKey) -> String {
        key == me ? "You" : shortNpub(key.npub)
    }

    /// The system line of a membership change: "You added npub1…", "npub1… removed you",
    /// "npub1… left".
    public func notice(_ notice: MembershipNotice, me: PublicKey) -> String {
        let actor = person(notice.actor, me: me)
        let subject = notice.subject == me ? "you" : shortNpub(notice.subject.npub)
        switch notice.change {
        // One account adding or removing one of its own devices (issue 29: each device its own leaf).
        case .added where notice.actor == notice.subject: return "\(actor) added a device"
        case .removed where notice.actor == notice.subject: return "\(actor) removed a device"
        case .added: return "\(actor) added \(subject)"
        case .removed: return "\(actor) removed \(subject)"
        case .left: return notice.subject == me ? "You left" : "\(shortNpub(notice.subject.npub)) left"
        case .renamed: return "\(actor) renamed the group"
        case .promoted: return "\(actor) made \(subject) an admin"
        case .demoted:
            return notice.subject == notice.actor ? "\(actor) stepped down as admin" : "\(actor) removed \(subject) as admin"
        case .readded:
            return notice.subject == me ? "You were added again by \(actor)" : "\(actor) added \(subject) again"
        case .retentionChanged:
            return "\(actor) changed disappearing messages"
        case .disbanded:
            return "\(actor) closed the group"
        case .pictureChanged:
            return "\(actor) changed the group picture"
        }
    }

    /// What a message from someone this account blocked shows instead of its text (issue 48).
    public static let blockedMessageText = "Message from a blocked person"

    /// The mark of a muted chat (issue 48): "muted" for good, "muted until 14:05" (or "until Mar 4") for a while.
    public func muteLabel(until end: Int64?) -> String {
        guard let end else { return "muted" }
        return "muted until \(listTime(end))"
    }

    /// The title of this account's Notes chat (issue 29).
    public static let notesTitle = "Notes"

    /// The mark of a message from an abandoned branch of the group (a competing change won, so the
    /// other members never had it).
    public static let invalidatedLabel = "not seen by the group (a competing change won)"

    /// The chat header's note on disappearing messages: "Messages disappear after 1 day"; nil when
    /// messages are kept.
    public static func retentionLabel(seconds: UInt64) -> String? {
        guard seconds > 0 else { return nil }
        return "Messages disappear after \(duration(seconds))"
    }

    /// "30 seconds", "5 minutes", "1 hour", "1 day", "2 weeks", or a sum of the largest units that
    /// divide it ("1 day 6 hours").
    static func duration(_ seconds: UInt64) -> String {
        let units: [(UInt64, String)] = [(604_800, "week"), (86_400, "day"), (3_600, "hour"), (60, "minute"), (1, "second")]
        var left = seconds
        var parts: [String] = []
        for (size, name) in units where left >= size && parts.count < 2 {
            let count = left / size
            left -= count * size
            parts.append("\(count) \(name)\(count == 1 ? "" : "s")")
        }
        return parts.joined(separator: " ")
    }

    /// The chat's title: the peer of a 1:1; a group's name; else the other members' short npubs
    /// ("npub1a…, npub1b… +2"); "npub1… (left)" when nobody else is left.
    public func chatTitle(_ info: ChatInfo) -> String {
        if info.isNotes { return Self.notesTitle }
        if info.isDirect { return displayName(peerName: info.peerName, npub: info.peer.npub) }
        let name = info.groupName.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        if !name.isEmpty { return name }
        if info.members.isEmpty { return "\(shortNpub(info.peer.npub)) (left)" }
        let shown = info.members.prefix(2).map { shortNpub($0.npub) }.joined(separator: ", ")
        return info.members.count > 2 ? "\(shown) +\(info.members.count - 2)" : shown
    }

    /// The chat header's note while the group has not settled on one history (issue 24); nil once
    /// it has.
    public static func convergenceLabel(_ convergence: ChatConvergence) -> String? {
        switch convergence {
        case .settled: nil
        case .syncing(let waiting):
            "Syncing: \(waiting) message\(waiting == 1 ? "" : "s") wait\(waiting == 1 ? "s" : "") for a change still on its way"
        case .resolving: "Resolving: our change is not confirmed by a relay yet"
        case .blocked(let reason): "Blocked: \(UntrustedText.line(reason, limit: 120))"
        }
    }

    /// The mark of a chat this account left or was removed from: "left"; nil while a member.
    public static func membershipLabel(isMember: Bool) -> String? { isMember ? nil : "left" }

    /// The small protocol badge of a chat row and header: "Marmot v1" or "Marmot v2" (issue 18).
    public static func protocolLabel(_ version: ChatProtocolVersion) -> String {
        "Marmot \(version.rawValue)"
    }

    /// The invitation line: "npub1… invites you to a chat" or "npub1… invites you to “Name” (3 members)".
    public func inviteTitle(_ invite: InviteInfo) -> String {
        let inviter = shortNpub(invite.inviter.npub)
        let name = preview(invite.groupName)
        if name.isEmpty && invite.memberCount <= 2 { return "\(inviter) invites you to a chat" }
        let target = name.isEmpty ? "a group" : "“\(name)”"
        return "\(inviter) invites you to \(target) (\(invite.memberCount) members)"
    }
}
