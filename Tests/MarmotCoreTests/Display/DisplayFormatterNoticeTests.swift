import Foundation
import MarmotCore
import Nostr
import Testing

/// System lines are worded by the core, with "You" for this account.
@Suite("DisplayFormatter notices") struct DisplayFormatterNoticeTests {
    let formatter = DisplayFormatter(clock: .system, timeZone: TimeZone(identifier: "UTC")!)
    let me = Keys.generate().publicKey
    let other = Keys.generate().publicKey

    @Test("membership and admin changes read as sentences")
    func wording() {
        let short = formatter.shortNpub(other.npub)
        #expect(formatter.notice(MembershipNotice(change: .added, actor: me, subject: other), me: me) == "You added \(short)")
        #expect(formatter.notice(MembershipNotice(change: .removed, actor: other, subject: me), me: me) == "\(short) removed you")
        #expect(formatter.notice(MembershipNotice(change: .left, actor: me, subject: other), me: me) == "\(short) left")
        #expect(formatter.notice(MembershipNotice(change: .renamed, actor: other, subject: other), me: me) == "\(short) renamed the group")
        #expect(formatter.notice(MembershipNotice(change: .promoted, actor: me, subject: other), me: me) == "You made \(short) an admin")
        #expect(formatter.notice(MembershipNotice(change: .demoted, actor: other, subject: other), me: me) == "\(short) stepped down as admin")
        #expect(formatter.notice(MembershipNotice(change: .demoted, actor: other, subject: me), me: me) == "\(short) removed you as admin")
    }
}
