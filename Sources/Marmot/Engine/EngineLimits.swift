import Foundation

/// How much a group engine keeps of what others can make it keep; past each bound the named input
/// is dropped (with its reason), so a member, a removed member holding a retained epoch, or anyone
/// who knows the group's event key cannot grow a device's memory or store without bound (security
/// review 2026-12-01, D2 and N5).
///
/// The numbers follow MDK 0.9.14 where it has one (deferred rows 256, queued intents 256, candidate
/// branch peel contexts 8, `cgka-engine` storage bounds) and our v1 caps otherwise (pending
/// proposals: 8 per sender, 64 in all).
package struct EngineLimits: Sendable, Hashable {
    /// Messages parked for a state they need. Past it a new one is refused, except that a commit or
    /// proposal takes the place of the oldest application message: junk cannot push out what
    /// waits (security review 2026-12-01, D7); a refused commit or proposal reports blocked.
    package var parked = 512
    /// Bytes the parked messages may hold in all (each is at most a kind-445's content; N2).
    package var parkedBytes = 8 << 20
    /// Application messages that opened on no state held (`GroupEngine.deferred`); more are dropped.
    package var deferred = 256
    /// Pending proposals one sender may have on one state; more are dropped (RFC 9420 §12.1 lets a
    /// member send any number, and each is kept in the state until a commit).
    package var proposalsPerSender = 8
    /// Pending proposals on one state in all.
    package var proposals = 64
    /// Application messages held on competing branches until one wins; more are dropped.
    package var held = 1024
    /// Competing commits kept from one state (each a full MLS state); a further one is dropped
    /// unless it is our own (MDK 0.9.14 keeps 8 candidate branch peel contexts).
    package var commitsPerState = 8
    /// Our own messages remembered per state, to be made again if that state's branch loses; the
    /// oldest are forgotten first.
    package var sentPerState = 256
    /// Our sends queued behind an unconfirmed commit of ours (MDK 0.9.14 `MAX_QUEUED_INTENTS`).
    package var intents = 256

    package init() {}
}
