import MarmotCore

/// The Devices screen (issue 29): this account's installations in the core's order (linked ones,
/// this one marked, then those waiting to be linked), each with its name, id, when it was added and
/// the core's status; the last device change's error, the core's history notice, and the keys that
/// apply to the highlighted row.
enum DevicesScreen {
    static let keys = "↑↓ move  u refresh  Esc back  Ctrl-C quit"
    /// On a device waiting to be linked.
    static let waitingKeys = "↑↓ move  l link (it is yours)  u refresh  Esc back  Ctrl-C quit"
    /// On a linked device other than this one.
    static let linkedKeys = "↑↓ move  r remove  u refresh  Esc back  Ctrl-C quit"

    /// The help line for the highlighted row.
    static func keys(_ state: AppState, _ ui: TUIViewState) -> String {
        let devices = state.devices.list
        guard let index = ui.selectedDeviceIndex(in: devices) else { return keys }
        let device = devices[index]
        if !device.isLinked { return waitingKeys }
        return device.isThisDevice ? keys : linkedKeys
    }

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout) -> [StyledLine] {
        let width = layout.width
        let devices = state.devices.list
        let linked = devices.filter(\.isLinked).count
        var summary = " · \(linked) linked · \(devices.count - linked) waiting"
        if state.devices.loading { summary = " · reading…" } else if !state.devices.loaded { summary = "" }
        var head: [StyledLine] = [
            StyledLine([Span(" Your devices", .bold), Span(summary, .dim)]).clipped(to: width),
            StyledLine(String(repeating: "─", count: width), .dim),
        ]
        var tail: [StyledLine] = [StyledLine(String(repeating: "─", count: width), .dim)]
        let deviceOperations: Set<UserOperation> = [.listDevices, .linkDevice, .removeDevice]
        if let outcome = state.lastOutcome, deviceOperations.contains(outcome.operation), !outcome.isSuccess {
            tail.append(StyledLine(" ! " + TextWidth.sanitized(outcome.message), .color(.red, bold: true)).clipped(to: width))
        }
        tail += TextWidth.wrapped(DevicesState.historyNotice, width: width - 2).map { StyledLine(" " + $0, .dim) }
        guard !devices.isEmpty else {
            let empty = state.devices.loaded ? " No devices listed." : " Reading your devices…"
            head.append(StyledLine(empty, .dim))
            let padding = max(layout.bodyRows - head.count - tail.count, 0)
            return head + Array(repeating: StyledLine.blank, count: padding) + tail
        }
        let selected = ui.selectedDeviceIndex(in: devices) ?? 0
        let rows = devices.enumerated().map { index, device in row(device, selected: index == selected, width: width) }
        let room = max(layout.bodyRows - head.count - tail.count, 1)
        let first = selected >= room ? selected - room + 1 : 0
        head += rows[min(first, rows.count)..<min(first + room, rows.count)]
        let padding = max(layout.bodyRows - head.count - tail.count, 0)
        return head + Array(repeating: StyledLine.blank, count: padding) + tail
    }

    /// One device: a marker, its name and id, when it was added, and the core's status label (green
    /// for this device, yellow while waiting to be linked).
    static func row(_ device: DeviceSummary, selected: Bool, width: Int) -> StyledLine {
        var nameStyle: TextStyle = device.isThisDevice ? .bold : .plain
        if selected { nameStyle.reverse = true }
        let status: TextStyle =
            device.isThisDevice ? .color(.green, bold: true) : device.isLinked ? .color(.green) : .color(.yellow, bold: true)
        var right: [Span] = []
        if !device.addedDisplay.isEmpty { right.append(Span("added " + TextWidth.sanitized(device.addedDisplay) + "  ", .dim)) }
        right += [Span(device.statusLabel, status), Span(" ")]
        return StyledLine.justified(
            [Span(selected ? " > " : "   ", .bold), Span(TextWidth.sanitized(device.name), nameStyle),
             Span("  " + TextWidth.sanitized(device.id), .dim)],
            right, width: width)
    }
}
