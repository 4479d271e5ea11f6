import MarmotCore

/// The login screen: create an account or import an nsec (typed masked).
enum LoginScreen {
    static func keys(_ ui: TUIViewState) -> String {
        ui.importingKey
            ? "Enter log in  Esc cancel  Ctrl-U clear  Ctrl-C quit"
            : "↑↓ choose  Enter select  c create  i import  q quit"
    }

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout) -> [StyledLine] {
        let width = layout.width
        var body: [StyledLine] = [.blank]
        body.append(StyledLine(" Welcome to Marmot", .bold))
        body += TextWidth.wrapped("End-to-end encrypted chats over Nostr relays (MLS).", width: width - 2)
            .map { StyledLine(" " + $0, .dim) }
        body.append(.blank)
        if ui.importingKey {
            body.append(StyledLine(" Import an existing account", .bold))
            body += TextWidth.wrapped("Type or paste your nsec and press Enter. It is kept on this machine only.", width: width - 2)
                .map { StyledLine(" " + $0) }
            body.append(.blank)
            body.append(TUIRenderer.field(" nsec: ", masked(ui.nsecInput), width: width))
        } else {
            for choice in TUIViewState.LoginChoice.allCases {
                let selected = choice == ui.loginChoice
                let label =
                    switch choice {
                    case .createAccount: "Create a new account  (c)"
                    case .importKey: "Import an existing key (nsec)  (i)"
                    }
                body.append(StyledLine([
                    Span(selected ? " > " : "   ", .bold),
                    Span(label, selected ? TextStyle(bold: true, reverse: true) : .plain),
                ]))
            }
        }
        return body
    }

    /// One bullet per typed character: the length shows typing progress, the key stays hidden.
    static func masked(_ secret: String) -> String {
        String(repeating: "•", count: secret.count)
    }
}
