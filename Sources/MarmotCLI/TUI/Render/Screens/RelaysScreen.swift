import MarmotCore

/// The Relays screen: the session's relays in the core's order, each with the core's status text
/// ("connected · last event 2 min ago", "failing: connection refused"), the core's summary line, the last relay change's error if it failed,
/// and the "Add relay" field while it is open.
enum RelaysScreen {
    static let keys = "↑↓ move  a add  r remove  Esc back  Ctrl-C quit"
    static let addKeys = "Enter add  Esc cancel  Ctrl-U clear"

    /// The help line for the screen shown.
    static func keys(_ ui: TUIViewState) -> String { ui.addingRelay ? addKeys : keys }

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout) -> [StyledLine] {
        let width = layout.width
        var head: [StyledLine] = [
            StyledLine([Span(" Your relays", .bold), Span(" · " + TextWidth.sanitized(state.network.statusText), .dim)])
                .clipped(to: width),
            StyledLine(String(repeating: "─", count: width), .dim),
        ]
        var tail: [StyledLine] = [StyledLine(String(repeating: "─", count: width), .dim)]
        if let outcome = state.lastOutcome, outcome.operation == .changeRelays, !outcome.isSuccess {
            tail.append(StyledLine(" ! " + TextWidth.sanitized(outcome.message), .color(.red, bold: true)).clipped(to: width))
        }
        if ui.addingRelay {
            tail.append(TUIRenderer.field(" Add relay: ", ui.relayInput, width: width))
        } else {
            tail.append(StyledLine(" a adds a relay (ws:// or wss://), r removes the highlighted one.", .dim).clipped(to: width))
        }
        let relays = state.network.relays
        guard !relays.isEmpty else {
            head.append(StyledLine(" No relays.", .dim))
            let padding = max(layout.bodyRows - head.count - tail.count, 0)
            return head + Array(repeating: StyledLine.blank, count: padding) + tail
        }
        let selected = ui.selectedRelayIndex(in: relays) ?? 0
        let rows = relays.enumerated().map { index, relay in row(relay, selected: index == selected, width: width) }
        let room = max(layout.bodyRows - head.count - tail.count, 1)
        let first = selected >= room ? selected - room + 1 : 0
        head += rows[min(first, rows.count)..<min(first + room, rows.count)]
        head += groupRelayLines(state.network.groupRelays, room: layout.bodyRows - head.count - tail.count, width: width)
        let padding = max(layout.bodyRows - head.count - tail.count, 0)
        return head + Array(repeating: StyledLine.blank, count: padding) + tail
    }

    /// One relay: a marker, the URL, and the core's status text (green when connected, red when
    /// failing).
    static func row(_ relay: RelayEntry, selected: Bool, width: Int) -> StyledLine {
        let urlStyle: TextStyle = selected ? .reverse : .plain
        let status: TextStyle =
            switch relay.state {
            case .connected: .color(.green, bold: true)
            case .failing: .color(.red)
            case .connecting, .disconnected: .color(.yellow)
            }
        return StyledLine.justified(
            [Span(selected ? " > " : "   ", .bold), Span(TextWidth.sanitized(relay.url), urlStyle)],
            [Span(TextWidth.sanitized(relay.statusText), status), Span(" ")], width: width)
    }

    /// The relays chats brought (issue 26), under the user's own and not selectable: each with its
    /// status and the chats it came from, as many as fit.
    static func groupRelayLines(_ relays: [GroupRelayEntry], room: Int, width: Int) -> [StyledLine] {
        guard !relays.isEmpty, room >= 2 else { return [] }
        let header = StyledLine([Span(" Group relays", .bold), Span(" · named by your chats", .dim)]).clipped(to: width)
        return [header] + relays.prefix(room - 1).map { entry in
            var shown = entry.relay
            shown.statusText += " · " + entry.originText
            return row(shown, selected: false, width: width)
        }
    }
}
