import MarmotCore

/// The rev rule of the platform mirror (MVP spec, Revision Counter), as a pure function.
enum RevisionGate {
    enum Disposition: Equatable {
        /// Already reflected in the mirror: drop it.
        case stale
        /// The mirror after applying the update.
        case apply(AppState)
        /// Updates are missing between the mirror and this one: resync from `state()`.
        case gap
    }

    /// What to do with `update` given the mirrored `state`, whose `rev` is the last rev applied.
    ///
    /// The next rev replaces its slice (updates carry full slices, never diffs). A `fullState` past a
    /// gap is applied as is: it is the whole truth at its rev, exactly what a resync would fetch.
    static func disposition(of update: AppUpdate, onto state: AppState) -> Disposition {
        guard update.rev > state.rev else { return .stale }
        if case .fullState(let full) = update { return .apply(full) }
        guard update.rev == state.rev + 1 else { return .gap }
        return .apply(update.applied(to: state))
    }
}
