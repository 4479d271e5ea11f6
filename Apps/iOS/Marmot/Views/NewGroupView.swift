import MarmotAppKit
import SwiftUI

/// Start a named group with several npubs (issue 14: group chats). The core validates the npubs,
/// creates the group and opens it in place of this screen.
struct NewGroupView: View {
    let manager: AppManager
    @State private var name = ""
    /// The members' npubs as typed, separated by commas, spaces or new lines.
    @State private var members = ""

    var body: some View {
        Form {
            Section {
                TextField("Group name", text: $name)
            }
            Section {
                TextField("npub1…, npub1…", text: $members, axis: .vertical)
                    .lineLimit(2...6)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
            } header: {
                Text("Members")
            } footer: {
                Text("The public keys of the people to invite, separated by commas or spaces.")
            }
            Button("Create Group") {
                manager.dispatch(.createGroup(name: name, memberNpubs: npubs))
            }
            .disabled(manager.state.busy.creatingChat)
            if let busy = manager.state.busy.statusText {
                ProgressView(busy)
            }
        }
        .navigationTitle("New Group")
    }

    /// The words of the members field between commas and whitespace; the core checks each one.
    private var npubs: [String] {
        members.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
    }
}
