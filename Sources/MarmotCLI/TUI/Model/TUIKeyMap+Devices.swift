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
        func select(_ target: Int) {
            guard !devices.isEmpty else { return }
            ui.selectedDevice = devices[min(max(target, 0), devices.count - 1)].id
        }
        switch key {
        case .escape, .left:
            return (ui, back(state))
        case .up, .character("k"): select((index ?? 0) - 1)
        case .down, .character("j"): select((index ?? -1) + 1)
        case .home: select(0)
        case .end: select(devices.count - 1)
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
