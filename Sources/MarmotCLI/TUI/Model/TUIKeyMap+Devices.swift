import MarmotCore

/// The Devices screen's keys (issue 29): this account's installations as the core lists them in
/// `AppState.devices`; the core links and removes, and says how it went in `lastOutcome`.
extension TUIKeyMap {
    /// ↑↓/jk move over the devices, l links the highlighted waiting device (pressing it is the
    /// user's "this is mine"), r or Delete asks to remove the highlighted linked device (y removes
    /// it), u reads the list again, Esc goes back. Nothing is sent while the core is busy with one.
    static func devices(_ key: Key, state: AppState, ui: TUIViewState) -> Result {
        var ui = ui
        if let confirming = ui.confirmingDeviceRemoval {
            ui.confirmingDeviceRemoval = nil
            guard key == .character("y") || key == .character("Y"), !state.devices.loading else { return (ui, []) }
            return (ui, [.removeDevice(id: confirming)])
        }
        let devices = state.devices.list
        let index = ui.selectedDeviceIndex(in: devices)
        let selected = index.map { devices[$0] }
        if let row = listMove(key, from: index, count: devices.count) {
            ui.selectedDevice = devices[row].id
            return (ui, [])
        }
        switch key {
        case .escape, .left:
            return (ui, back(state))
        case .character("l"), .enter:
            guard let selected, !selected.isLinked, !state.devices.loading else { return (ui, []) }
            return (ui, [.linkDevice(id: selected.id)])
        case .character("r"), .delete:
            guard let selected, selected.isLinked, !selected.isThisDevice, !state.devices.loading else { return (ui, []) }
            ui.confirmingDeviceRemoval = selected.id
        case .character("u"):
            guard !state.devices.loading else { return (ui, []) }
            return (ui, [.loadDevices])
        default:
            break
        }
        return (ui, [])
    }
}
