import MarmotCore

/// The Profile screen: the name others see (from `AppState.profile`), the account's npub, the name
/// field, the core's saving text while a name is published, and the last name change's error if it
/// failed.
enum ProfileScreen {
    static let keys = "Enter save name  Esc back  Ctrl-U clear  Ctrl-C quit"

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout) -> [StyledLine] {
        let width = layout.width
        var body: [StyledLine] = [.blank, StyledLine(" Your name", .bold)]
        body += TextWidth.wrapped("People see this name instead of your npub in their chats.", width: width - 2)
            .map { StyledLine(" " + $0, .dim) }
        body.append(.blank)
        if let name = state.profile.name {
            body.append(StyledLine([Span(" Name: ", .dim), Span(TextWidth.sanitized(name), .bold)]).clipped(to: width))
        } else {
            body.append(StyledLine([Span(" Name: ", .dim), Span("not set", .dim)]))
        }
        if case .loggedIn(let npub, _) = state.auth {
            body.append(StyledLine([Span(" npub: ", .dim), Span(npub)]).clipped(to: width))
        }
        body.append(.blank)
        body.append(TUIRenderer.field(" New name: ", ui.profileNameInput, width: width, focused: !state.profile.saving))
        if let saving = state.profile.statusText {
            body.append(StyledLine(" " + saving, .color(.blue, bold: true)))
        } else if let outcome = state.lastOutcome, outcome.operation == .setProfileName, !outcome.isSuccess {
            body.append(StyledLine(" ! " + TextWidth.sanitized(outcome.message), .color(.red, bold: true)).clipped(to: width))
        }
        return body
    }
}
