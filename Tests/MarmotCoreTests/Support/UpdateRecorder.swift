import MarmotCore

/// Collects every update in arrival order, like the spec's TestReconciler.
final class UpdateRecorder: AppReconciler {
    private let store = Locked<[AppUpdate]>([])

    func reconcile(_ update: AppUpdate) {
        store.update { $0.append(update) }
    }

    var updates: [AppUpdate] { store.current }
    var revs: [UInt64] { updates.map(\.rev) }
    var lastRev: UInt64? { updates.last?.rev }

    /// The state a platform mirror would hold after applying every update to `initial`; nil when
    /// a rev was skipped or repeated.
    func mirror(from initial: AppState) -> AppState? {
        var state = initial
        for update in updates {
            guard let next = replay(update, onto: state) else { return nil }
            state = next
        }
        return state
    }

    /// The nsec handed out by the first `accountCreated`, if any.
    var createdNsec: String? {
        for case .accountCreated(_, let nsec, _, _) in updates { return nsec }
        return nil
    }
}

/// The open chat an update carries, if it carries one.
func currentChat(in update: AppUpdate) -> ChatViewState? {
    switch update {
    case .currentChatChanged(_, let chat): chat
    case .fullState(let state): state.currentChat
    default: nil
    }
}

/// Applies one update to a mirror state, as a platform manager would; nil on a rev gap.
func replay(_ update: AppUpdate, onto state: AppState) -> AppState? {
    guard update.rev == state.rev + 1 else { return nil }
    return update.applied(to: state)
}
