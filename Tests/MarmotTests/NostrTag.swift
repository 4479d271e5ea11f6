import Nostr

/// Nostr tags (Swift Testing also exports a `Tag`).
typealias Tag = Nostr.Tag
