/// Whether a group chat has settled on one history after competing changes (issue 24).
///
/// The core's form of MDK 0.9.14's convergence status, which the protocol client reports per group:
/// renderers show `convergenceLabel` while it is not `settled` and decide from `code`.
public enum ChatConvergence: Sendable, Equatable {
    /// One history; nothing waits.
    case settled
    /// `waiting` messages that opened wait for a change still on its way (a proposal).
    case syncing(waiting: Int)
    /// A change of ours was published and no relay has confirmed it yet.
    case resolving
    /// A competing change forks before the oldest state this device keeps: it cannot be weighed.
    case blocked(reason: String)

    /// The status's stable code: `settled`, `syncing`, `resolving` or `blocked`.
    public var code: String {
        switch self {
        case .settled: "settled"
        case .syncing: "syncing"
        case .resolving: "resolving"
        case .blocked: "blocked"
        }
    }
}
