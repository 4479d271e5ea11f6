import MarmotCore

/// The New Group screen: a name field and a members field (npubs separated by commas or spaces);
/// Enter in the members field asks the core to create the group, which then opens it.
enum NewGroupScreen {
    static let keys = "Tab switch field  Enter next/create  Esc back  Ctrl-U clear  Ctrl-C quit"

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout) -> [StyledLine] {
        let width = layout.width
        let editable = !state.busy.creatingChat
        var body: [StyledLine] = [.blank, StyledLine(" Start a group", .bold)]
        body += TextWidth.wrapped(
            "Name the group, then list the members' npubs separated by commas or spaces, and press Enter.",
            width: width - 2
        ).map { StyledLine(" " + $0) }
        body.append(.blank)
        body.append(TUIRenderer.field(" Name:    ", ui.groupNameInput, width: width, focused: editable && ui.newGroupField == .name))
        body.append(.blank)
        body.append(
            TUIRenderer.field(" Members: ", ui.groupMembersInput, width: width, focused: editable && ui.newGroupField == .members))
        let count = TUIKeyMap.npubs(in: ui.groupMembersInput).count
        if count > 0 {
            body.append(StyledLine("          \(count) npub\(count == 1 ? "" : "s") typed", .dim))
        }
        return body
    }
}
