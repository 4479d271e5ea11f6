import MarmotAppKit
import SwiftUI

/// Start a chat with a peer's npub (MVP spec, Screens: New Chat).
struct NewChatView: View {
    let manager: AppManager
    @State private var npub = ""

    var body: some View {
        Form {
            Section {
                TextField("npub1…", text: $npub)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
            } footer: {
                Text("The public key of the person to chat with.")
            }
            Button("Start Chat") { manager.dispatch(.createChat(peerNpub: npub)) }
                .disabled(!manager.state.busy.canCreateChat(peerNpub: npub))
            if let busy = manager.state.busy.statusText {
                ProgressView(busy)
            }
        }
        .navigationTitle("New Chat")
    }
}
