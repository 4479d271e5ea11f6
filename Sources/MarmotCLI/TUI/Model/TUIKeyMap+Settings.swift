import MarmotCore

/// The account screens' keys: Relays (the session's relays; add and remove) and Profile (the name
/// others see). The core validates the URL and the name and says how it went in `lastOutcome`.
extension TUIKeyMap {
    // MARK: Relays

    /// ↑↓/jk move over the relays, a asks a relay URL (Enter adds it, Esc cancels), r or Delete
    /// removes the highlighted relay, Esc goes back.
    static func relays(_ key: Key, state: AppState, ui: TUIViewState) -> Result {
        var ui = ui
        if ui.addingRelay {
            switch promptStep(key, input: ui.relayInput) {
            case .editing(let text):
                ui.relayInput = text
                return (ui, [])
            case .cancelled:
                ui.addingRelay = false
                ui.relayInput = ""
                return (ui, [])
            case .submitted(let url):
                ui.addingRelay = false
                ui.relayInput = ""
                return (ui, [.addRelay(url: url)])
            }
        }
        let relays = state.network.relays
        let index = ui.selectedRelayIndex(in: relays)
        if let row = listMove(key, from: index, count: relays.count) {
            ui.selectedRelay = relays[row].url
            return (ui, [])
        }
        switch key {
        case .escape, .left:
            return (ui, back(state))
        case .character("a"):
            ui.addingRelay = true
            ui.relayInput = ""
        case .character("r"), .delete:
            guard let index else { return (ui, []) }
            return (ui, [.removeRelay(url: relays[index].url)])
        default:
            break
        }
        return (ui, [])
    }

    // MARK: Profile

    /// Type the new name, Enter asks the core to publish it, Esc goes back; the field is frozen while
    /// the core saves a name.
    static func profile(_ key: Key, state: AppState, ui: TUIViewState) -> Result {
        var ui = ui
        switch key {
        case .escape:
            return (ui, back(state))
        case .enter:
            if state.profile.saving { return (ui, []) }
            let name = ui.profileNameInput
            ui.profileNameInput = ""
            return (ui, [.setProfileName(name: name)])
        default:
            if state.profile.saving { return (ui, []) }
            ui.profileNameInput = edited(ui.profileNameInput, with: key)
            return (ui, [])
        }
    }
}
